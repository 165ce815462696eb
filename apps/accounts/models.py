from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.db import models
from django.db.models import F
from django.db.models.functions import Lower
from django.utils import timezone


class UserManager(BaseUserManager):
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
    created_at = models.DateTimeField("aangemeld op", default=timezone.now, db_index=True)
    is_active = models.BooleanField("actief", default=True)
    # All the member's dips, kept by the dip services (apps.challenges.services.user_dip_count_refresh) in the
    # transaction that changes them: the admin's users table sorts on it without counting every dip.
    dip_count = models.PositiveIntegerField("aantal plonsen", default=0, editable=False)
    # Bumped, in the same transaction, by every service that changes what the member's own pages show
    # (apps.challenges.services.member_pages_changed): it keys their cached pages (apps.core.page_cache).
    pages_version = models.PositiveBigIntegerField("versie van de eigen pagina's", default=0, editable=False)

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
    def is_admin(self) -> bool:
        """The admin role (the spec's `user_roles`), read once per user object."""
        if not hasattr(self, "_is_admin"):
            self._is_admin = self.pk is not None and self.roles.filter(role=UserRole.Role.ADMIN).exists()
        return self._is_admin

    # Django's admin site asks these; they follow the admin role so there is one source of truth.
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


class UserRole(models.Model):
    """The spec's `user_roles`: a row with role 'admin' makes a user an admin."""

    class Role(models.TextChoices):
        ADMIN = "admin", "Admin"

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
