"""The second step of a password sign-in (allauth's MFA stage), told in plain Dutch.

allauth's page asks for "an authenticator code" first and offers the passkey as an aside; a member who
only has a passkey read that as a code they never had. Our page asks for what the member has: the
passkey first when there is one, the app's code or a recovery code only when those exist.
"""

from allauth.mfa.base.views import AuthenticateView
from allauth.mfa.models import Authenticator


class SecondStepView(AuthenticateView):
    def get_context_data(self, **kwargs) -> dict:
        context = super().get_context_data(**kwargs)
        types = set(Authenticator.objects.filter(user=self.stage.login.user).values_list("type", flat=True))
        context |= {
            "has_passkey": Authenticator.Type.WEBAUTHN in types,
            "has_app": Authenticator.Type.TOTP in types,
            "has_recovery_codes": Authenticator.Type.RECOVERY_CODES in types,
        }
        return context


second_step = SecondStepView.as_view()
