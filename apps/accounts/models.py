from typing import NamedTuple

from allauth.mfa.models import Authenticator
from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.db import models
from django.db.models import Exists, F, OuterRef
from django.db.models.functions import Lower
from django.utils import timezone

from apps.core.prepared import PreparedQuery

# The second factor the admin role needs: a passkey or an authenticator app (recovery codes alone are not one).
SECOND_FACTOR_TYPES = (Authenticator.Type.WEBAUTHN, Authenticator.Type.TOTP)


class ConsentSource(models.TextChoices):
    """Where a member made their newsletter choice (User.newsletter_consent_source)."""

    SIGN_UP = "aanmelden", "aanmeldformulier"
    ACCOUNT = "account", "accountpagina"


class AdminStanding(NamedTuple):
    has_role: bool  # the admin role
    has_second_factor: bool  # only looked at for role holders; False otherwise
    has_organiser_role: bool = False  # "Organisator": events, attendance and club messages, nothing more


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def get_by_natural_key(self, email):
        return self.get(email__iexact=email)

    def create_user(self, email, password=None, **extra_fields):
        if not email:
            raise ValueError("Een e-mailadres is verplicht")
        user = self.model(email=self.normalize_email(email).lower(), **extra_fields)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_superuser(self, email, password=None, **extra_fields):
        """`createsuperuser` makes an admin: the admin role is the one source of truth."""
        user = self.create_user(email, password, **extra_fields)
        UserRole.objects.get_or_create(user=user, role=UserRole.Role.ADMIN)
        return user


class User(AbstractBaseUser):
    """A member. The spec's `profiles`: the e-mail address is the login."""

    email = models.EmailField("e-mailadres", max_length=254, unique=True)
    full_name = models.CharField("naam", max_length=150)
    newsletter_consent = models.BooleanField("nieuwsbrief", default=False)
    # When and where the newsletter choice was last made (sign-up form, /account, an import): the club must
    # be able to show the consent (AVG). Shown in the member's export.
    newsletter_consent_at = models.DateTimeField("nieuwsbrief gekozen op", null=True, blank=True, editable=False)
    newsletter_consent_source = models.CharField(
        "nieuwsbrief gekozen via", max_length=20, blank=True, default="", db_default="", editable=False
    )
    created_at = models.DateTimeField("aangemeld op", default=timezone.now, db_index=True)
    is_active = models.BooleanField("actief", default=True)
    # All the member's dips, kept by the dip services (apps.challenges.services.recount.user_dip_count_refresh) in the
    # transaction that changes them: the admin's users table sorts on it without counting every dip.
    dip_count = models.PositiveIntegerField("aantal plonsen", default=0, editable=False)
    # The member scope's version: moved, in the same transaction, by every write that changes what the
    # member's own pages show (pages_changed(MEMBER, ...)): it keys their cached pages (apps.core.page_cache).
    pages_version = models.PositiveBigIntegerField("versie van de eigen pagina's", default=0, editable=False)
    # "Anderen mogen mij taggen" on /account: clubmates may name the member as a buddy on their dip
    # (apps.challenges.models.DipBuddy). Off: the member is not offered in anyone's "Met wie?".
    tagging_allowed = models.BooleanField("anderen mogen mij taggen", default=True)
    # The day the member read the season's safety briefing on the stamp card ("Ik heb het gelezen"); only
    # the date is kept (apps.together). Due again when a new season started after it.
    safety_briefing_read_on = models.DateField("veiligheidsuitleg gelezen op", null=True, blank=True, editable=False)

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS = ["full_name"]

    class Meta:
        verbose_name = "gebruiker"
        verbose_name_plural = "gebruikers"
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(Lower("email"), name="user_email_unique_ci"),
        ]
        indexes = [
            models.Index(fields=["newsletter_consent"], name="user_newsletter_idx"),
            # The admin users table: one index per sort order (with the id as tie-break), read from its
            # start or from the cursor's row, so a page costs the same at any club size.
            models.Index(fields=["dip_count", "id"], name="user_dip_count_idx"),
            models.Index(Lower("full_name"), F("id"), name="user_name_sort_idx"),
            models.Index(fields=["created_at", "id"], name="user_created_sort_idx"),
        ]

    def __str__(self):
        return self.full_name or self.email

    def clean(self):
        super().clean()
        self.email = self.__class__.objects.normalize_email(self.email).lower()

    @property
    def display_name(self) -> str:
        return self.full_name.strip() or "Zwemmer"

    @property
    def admin_standing(self) -> AdminStanding:
        """The roles and the second factor, read together in one query and kept on this user object (one per
        request): every admin- or organiser-only decision of a request asks it, but the database once."""
        if not hasattr(self, "_admin_standing"):
            rows = dict(_ROLES_AND_FACTOR.rows(user_id=self.pk)) if self.pk is not None else {}
            self._admin_standing = AdminStanding(
                has_role=UserRole.Role.ADMIN in rows,
                has_second_factor=any(rows.values()),
                has_organiser_role=UserRole.Role.ORGANISER in rows,
            )
        return self._admin_standing

    def forget_admin_standing(self) -> None:
        """After the role or a factor changed: this object asks the database again."""
        self.__dict__.pop("_admin_standing", None)

    @property
    def has_admin_role(self) -> bool:
        """The admin role alone (the spec's `user_roles`): for granting and revoking, the never-zero-admins
        guards and /account, which tells a role holder without a factor to add one. It gives no power."""
        return self.admin_standing.has_role

    @property
    def is_admin(self) -> bool:
        """Acts as admin: the admin role AND a second factor. The one predicate of every admin-only decision
        (views, JSON endpoints, photos, the Django admin through `is_staff`, templates); a role holder
        without a factor is a member until they add one."""
        standing = self.admin_standing
        return standing.has_role and standing.has_second_factor

    @property
    def has_organiser_role(self) -> bool:
        """The organiser role alone: for granting, revoking and the users table. It gives no power."""
        return self.admin_standing.has_organiser_role

    @property
    def is_organiser(self) -> bool:
        """Acts as organiser: the organiser role AND a second factor, as for admins."""
        standing = self.admin_standing
        return standing.has_organiser_role and standing.has_second_factor

    @property
    def may_organise(self) -> bool:
        """May use the organiser's pages on /admin (events, attendance, club messages): admins and organisers."""
        return self.is_admin or self.is_organiser

    # Django's admin site asks these; they follow the one predicate.
    @property
    def is_staff(self) -> bool:
        return self.is_active and self.is_admin

    @property
    def is_superuser(self) -> bool:
        return self.is_staff

    def has_perm(self, perm, obj=None) -> bool:
        return self.is_staff

    def has_perms(self, perm_list, obj=None) -> bool:
        return self.is_staff

    def has_module_perms(self, app_label) -> bool:
        return self.is_staff


def _roles_and_factor(user_id: int):
    factors = Authenticator.objects.filter(user=OuterRef("user"), type__in=SECOND_FACTOR_TYPES)
    return UserRole.objects.filter(user_id=user_id).values_list("role", Exists(factors))


# Asked on every rendered page (the header's way to /admin): compiled once (apps/core/prepared.py).
_ROLES_AND_FACTOR = PreparedQuery(_roles_and_factor, user_id=int)


class UserRole(models.Model):
    """The spec's `user_roles`: a row with role 'admin' makes a user an admin, 'organiser' an organiser."""

    class Role(models.TextChoices):
        ADMIN = "admin", "Admin"
        ORGANISER = "organiser", "Organisator"

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="roles", verbose_name="gebruiker")
    role = models.CharField("rol", max_length=20, choices=Role.choices)
    created_at = models.DateTimeField("toegekend op", auto_now_add=True)

    class Meta:
        verbose_name = "rol"
        verbose_name_plural = "rollen"
        constraints = [
            models.UniqueConstraint(fields=["user", "role"], name="user_role_unique"),
        ]

    def __str__(self):
        return f"{self.user} ({self.get_role_display()})"
