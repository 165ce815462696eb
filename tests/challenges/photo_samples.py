"""Images made on the fly for upload tests."""

import io

from PIL import Image


def image_bytes(fmt: str = "JPEG", size=(64, 48), color=(30, 120, 200), exif: bytes | None = None) -> bytes:
    out = io.BytesIO()
    image = Image.new("RGB", size, color)
    kwargs = {"exif": exif} if exif is not None else {}
    image.save(out, format=fmt, **kwargs)
    return out.getvalue()


def exif_with_gps_and_rotation() -> bytes:
    exif = Image.Exif()
    exif[0x0112] = 6  # orientation: rotate 90° clockwise to display
    exif[0x010F] = "SnoopCam"  # camera make
    gps = exif.get_ifd(0x8825)
    gps[1] = "N"
    gps[2] = (52.0, 22.0, 30.0)
    gps[3] = "E"
    gps[4] = (4.0, 32.0, 10.0)
    return exif.tobytes()
