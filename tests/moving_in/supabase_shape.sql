-- The original app's database as far as the import reads it (../shared/docs/moving-in.md, spec section 3):
-- Supabase's auth and storage schemas with the columns used (plus a few it ignores), and the public tables.
-- Column types follow Supabase's own migrations (github.com/supabase/auth, github.com/supabase/storage).
CREATE SCHEMA auth;
CREATE SCHEMA storage;

CREATE TABLE auth.users (
    instance_id uuid,
    id uuid PRIMARY KEY,
    aud varchar(255),
    role varchar(255),
    email varchar(255),
    encrypted_password varchar(255) NOT NULL DEFAULT '',
    email_confirmed_at timestamptz,
    raw_app_meta_data jsonb,
    raw_user_meta_data jsonb,
    created_at timestamptz,
    updated_at timestamptz,
    last_sign_in_at timestamptz,
    banned_until timestamptz,
    deleted_at timestamptz,
    is_anonymous boolean NOT NULL DEFAULT false,
    is_sso_user boolean NOT NULL DEFAULT false
);

CREATE TABLE auth.identities (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    provider_id text NOT NULL,
    user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
    identity_data jsonb NOT NULL DEFAULT '{}',
    provider text NOT NULL,
    created_at timestamptz
);

CREATE TABLE storage.buckets (
    id text PRIMARY KEY,
    name text NOT NULL,
    public boolean DEFAULT false,
    created_at timestamptz DEFAULT now()
);

CREATE TABLE storage.objects (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    bucket_id text REFERENCES storage.buckets (id),
    name text,
    owner uuid,
    owner_id text,
    created_at timestamptz DEFAULT now(),
    metadata jsonb
);

CREATE TABLE public.profiles (
    id uuid PRIMARY KEY REFERENCES auth.users (id) ON DELETE CASCADE,
    email text,
    full_name text,
    created_at timestamptz NOT NULL DEFAULT now(),
    newsletter_consent boolean DEFAULT false
);

CREATE TABLE public.user_roles (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
    role text NOT NULL
);

CREATE TABLE public.challenges (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name text NOT NULL,
    description text,
    category text NOT NULL,
    target_dips integer NOT NULL,
    badge_image_url text,
    is_active boolean DEFAULT true,
    created_at timestamptz DEFAULT now()
);

CREATE TABLE public.badges (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    challenge_id uuid REFERENCES public.challenges (id),
    name text NOT NULL,
    description text,
    image_url text,
    milestone_dips integer NOT NULL
);

-- Nothing here says one active card per member, or a dip count at most the target: the old app did not.
CREATE TABLE public.user_challenges (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
    challenge_id uuid NOT NULL REFERENCES public.challenges (id),
    is_active boolean DEFAULT true,
    completed_at timestamptz,
    challenge_type text,
    created_at timestamptz DEFAULT now()
);

CREATE TABLE public.dips (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
    user_challenge_id uuid REFERENCES public.user_challenges (id) ON DELETE CASCADE,
    dip_date date NOT NULL,
    photo_url text,
    created_at timestamptz DEFAULT now()
);

CREATE TABLE public.user_badges (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
    badge_id uuid NOT NULL REFERENCES public.badges (id),
    user_challenge_id uuid REFERENCES public.user_challenges (id) ON DELETE CASCADE,
    earned_at timestamptz DEFAULT now()
);

CREATE TABLE public.invitations (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    code text NOT NULL UNIQUE,
    email text,
    invited_by uuid REFERENCES auth.users (id),
    expires_at timestamptz NOT NULL,
    used_at timestamptz,
    used_by uuid REFERENCES auth.users (id),
    created_at timestamptz DEFAULT now()
);

CREATE TABLE public.events (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    title text NOT NULL,
    event_date timestamptz NOT NULL,
    location text,
    description text,
    max_participants integer,
    is_active boolean DEFAULT true,
    created_at timestamptz DEFAULT now()
);

CREATE TABLE public.event_participants (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    event_id uuid NOT NULL REFERENCES public.events (id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
    created_at timestamptz DEFAULT now()
);
