"""Security headers that neither Django 5.2 nor django-csp set."""

PERMISSIONS_POLICY = "camera=(self), geolocation=(), microphone=(), payment=()"


class PermissionsPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response
