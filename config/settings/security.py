"""The Content Security Policy, for django-csp (CONTENT_SECURITY_POLICY["DIRECTIVES"]).

No inline script or style anywhere: islands are built files, initial data goes in with json_script.
"""

from csp.constants import NONE, SELF


def content_security_policy(*, vite_dev_origin: str | None = None, photo_origin: str | None = None) -> dict:
    script_src, style_src, connect_src = [SELF], [SELF], [SELF]
    if vite_dev_origin:
        # Development only: the Vite dev server serves modules, injects styles and hot-reloads over its port.
        script_src.append(vite_dev_origin)
        style_src += [vite_dev_origin, "'unsafe-inline'"]
        connect_src += [vite_dev_origin, vite_dev_origin.replace("http", "ws", 1)]
    img_src = [SELF, "data:", "blob:"]
    if photo_origin:
        # Signed photo URLs point at the object store; the browser must be allowed to load them.
        img_src.append(photo_origin)
    return {
        "default-src": [SELF],
        "script-src": script_src,
        "style-src": style_src,
        "img-src": img_src,
        "font-src": [SELF],
        "connect-src": connect_src,
        # The service worker and the web app manifest come from this site only.
        "worker-src": [SELF],
        "manifest-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
