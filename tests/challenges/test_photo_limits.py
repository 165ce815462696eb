"""What a photo may cost (issue 10): refused before it is read, bounded decodes, a few at once, a rate per member."""

import io
import uuid

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from apps.challenges import photos
from apps.challenges.models import Challenge, Dip
from apps.challenges.photos import PhotoBusyError, PhotoError, photo_decode_slot, photo_process
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dips import dip_register
from tests.challenges.photo_samples import image_bytes

pytestmark = pytest.mark.django_db

MESSAGE_TOO_MANY_PIXELS = "Deze foto heeft te veel pixels. Kies een kleinere foto."


def upload(data: bytes, name="foto.jpg", content_type="image/jpeg"):
    return SimpleUploadedFile(name, data, content_type=content_type)


def flat(fmt: str, size, mode="RGB", **options) -> bytes:
    out = io.BytesIO()
    Image.new(mode, size).save(out, format=fmt, **options)
    return out.getvalue()


@pytest.fixture(autouse=True)
def _fresh_rate_counters():
    cache.clear()


@pytest.fixture
def waterdieren():
    return Challenge.objects.get(category=Challenge.Category.WATERDIEREN)


@pytest.fixture
def small_limits(settings):
    """The same rules at a size a test can afford: 1 MP for JPEG, 0.25 MP for full decodes."""
    settings.PHOTO_MAX_PIXELS = 1_000_000
    settings.PHOTO_MAX_PIXELS_FULL_DECODE = 250_000


# --- bounded decodes -----------------------------------------------------------------------------------


def test_the_attack_runs_png_bomb_is_refused_before_it_is_decoded(monkeypatch):
    """The 143 KB PNG of 7000 x 7000 black pixels that took 436 MB: refused from its header alone."""
    bomb = flat("PNG", (7000, 7000))
    assert len(bomb) < 200_000
    monkeypatch.setattr(Image.Image, "load", lambda self: pytest.fail("decoded"))
    with pytest.raises(PhotoError, match=MESSAGE_TOO_MANY_PIXELS):
        photo_process(upload(bomb, "bom.png", "image/png"))


@pytest.mark.usefixtures("small_limits")
def test_a_jpeg_may_have_more_pixels_than_formats_decoded_at_full_size():
    jpeg = flat("JPEG", (1200, 800))  # 0.96 MP: under the JPEG limit, over the full-decode limit
    assert photo_process(upload(jpeg)).full
    for data, name in [(flat("PNG", (1200, 800)), "x.png"), (flat("JPEG", (1200, 800), progressive=True), "p.jpg")]:
        with pytest.raises(PhotoError, match=MESSAGE_TOO_MANY_PIXELS):
            photo_process(upload(data, name))
    with pytest.raises(PhotoError, match=MESSAGE_TOO_MANY_PIXELS):
        photo_process(upload(flat("JPEG", (1100, 1000)), "te-groot.jpg"))


@pytest.mark.usefixtures("small_limits")
def test_webp_gets_half_the_full_decode_limit():
    assert photo_process(upload(flat("WEBP", (300, 300)), "ok.webp")).full  # 90,000 pixels
    with pytest.raises(PhotoError, match=MESSAGE_TOO_MANY_PIXELS):
        photo_process(upload(flat("WEBP", (400, 400)), "groot.webp"))  # 160,000 > 125,000


def test_a_long_panorama_is_also_decoded_at_reduced_scale():
    """draft() is asked for the photo's final size, so the short side does not block the reduction."""
    image = photos._open_checked(upload(flat("JPEG", (8192, 1024))))
    assert image.size == (2048, 256)  # libjpeg decodes at 1/4 scale


def test_a_reduced_decode_still_gives_an_upright_photo_at_the_cap():
    from tests.challenges.photo_samples import exif_with_gps_and_rotation

    data = image_bytes("JPEG", size=(6000, 3000), exif=exif_with_gps_and_rotation())
    stored = Image.open(io.BytesIO(photo_process(upload(data)).full))
    assert stored.size == (1024, 2048)


# --- a few decodes at once per process -----------------------------------------------------------------


def test_when_every_decode_slot_stays_taken_the_member_hears_to_try_again(settings, monkeypatch):
    import threading

    settings.PHOTO_DECODE_WAIT_SECONDS = 0
    monkeypatch.setattr(photos, "_decode_slots", threading.BoundedSemaphore(1))
    with photo_decode_slot():
        with pytest.raises(PhotoBusyError, match="Het is even erg druk"):
            with photo_decode_slot():
                pass
    with photo_decode_slot():  # released again
        pass


def test_the_endpoint_answers_503_in_dutch_when_busy(member_client, member, waterdieren, settings, monkeypatch):
    import threading

    challenge_start(user=member, challenge_id=waterdieren.pk)
    settings.PHOTO_DECODE_WAIT_SECONDS = 0
    slots = threading.BoundedSemaphore(1)
    monkeypatch.setattr(photos, "_decode_slots", slots)
    slots.acquire()
    response = member_client.post("/challenge/plons", {"photo": upload(image_bytes())})
    assert response.status_code == 503
    assert response.json()["error"].startswith("Het is even erg druk met foto's verwerken.")
    assert not Dip.objects.exists()


# --- refused before the photo is read ------------------------------------------------------------------


@pytest.fixture
def decodes(monkeypatch):
    calls = []
    real = photos.photo_process
    monkeypatch.setattr(photos, "photo_process", lambda f: calls.append(f.name) or real(f))
    return calls


def test_without_an_active_card_the_photo_is_never_decoded(member_client, decodes):
    response = member_client.post("/challenge/plons", {"photo": upload(flat("PNG", (7000, 7000)), "bom.png")})
    assert response.status_code == 409
    assert response.json()["error"] == "Je hebt geen actieve challenge."
    assert decodes == []


def test_a_completed_or_full_card_refuses_before_decoding(member_client, member, decodes):
    starter = Challenge.objects.get(target_dips=5)
    challenge_start(user=member, challenge_id=starter.pk)
    for _ in range(5):
        dip_register(user=member)
    response = member_client.post("/challenge/plons", {"photo": upload(image_bytes())})
    assert response.status_code == 409
    assert response.json()["error"] == "Deze challenge is voltooid. Je kunt geen nieuwe plonsen meer toevoegen."
    assert decodes == []


def test_a_resend_of_the_last_dip_on_a_completed_card_still_gets_its_answer(member_client, member, decodes):
    starter = Challenge.objects.get(target_dips=5)
    challenge_start(user=member, challenge_id=starter.pk)
    for _ in range(4):
        dip_register(user=member)
    request_id = uuid.uuid4()
    dip_register(user=member, request_id=request_id)
    response = member_client.post("/challenge/plons", {"request_id": str(request_id), "photo": upload(image_bytes())})
    assert response.status_code == 200
    assert response.json()["dipCount"] == 5 and response.json()["completed"]
    assert decodes == []


# --- rate per member -----------------------------------------------------------------------------------


def test_a_member_sending_many_photos_gets_a_dutch_429(member_client, member, other_member, waterdieren, settings):
    settings.PHOTO_UPLOADS_PER_WINDOW = 2
    challenge_start(user=member, challenge_id=waterdieren.pk)
    for _ in range(2):
        assert member_client.post("/challenge/plons", {"photo": upload(image_bytes())}).status_code == 201
    refused = member_client.post("/challenge/plons", {"photo": upload(image_bytes())})
    assert refused.status_code == 429
    assert refused.json()["error"].startswith("Je hebt in korte tijd veel foto's verstuurd.")
    assert Dip.objects.count() == 2
    # A dip without a photo costs no decode and is not limited; another member has their own count.
    assert member_client.post("/challenge/plons").status_code == 201
    challenge_start(user=other_member, challenge_id=waterdieren.pk)
    member_client.force_login(other_member)
    assert member_client.post("/challenge/plons", {"photo": upload(image_bytes())}).status_code == 201


def test_the_count_starts_again_in_the_next_window(member, settings):
    settings.PHOTO_UPLOADS_PER_WINDOW = 1
    settings.PHOTO_UPLOAD_WINDOW_SECONDS = 600
    assert photos.photo_upload_allowed(user_id=member.pk, now=1_200.0)
    assert not photos.photo_upload_allowed(user_id=member.pk, now=1_500.0)
    assert photos.photo_upload_allowed(user_id=member.pk, now=1_800.0)


# --- a photo that did not arrive whole -----------------------------------------------------------------


def truncated_multipart(photo: bytes, boundary: str = "----koudgrens") -> bytes:
    head = (
        f"--{boundary}\r\n"
        'Content-Disposition: form-data; name="request_id"\r\n\r\n'
        f"{uuid.uuid4()}\r\n"
        f"--{boundary}\r\n"
        'Content-Disposition: form-data; name="photo"; filename="plons.jpg"\r\n'
        "Content-Type: image/jpeg\r\n\r\n"
    ).encode()
    return head + photo[: len(photo) // 2]  # the connection broke off halfway: no closing boundary


def test_a_photo_cut_off_halfway_refuses_the_dip_in_dutch(member_client, member, waterdieren):
    challenge_start(user=member, challenge_id=waterdieren.pk)
    body = truncated_multipart(image_bytes(size=(400, 300)))
    response = member_client.generic(
        "POST", "/challenge/plons", body, content_type="multipart/form-data; boundary=----koudgrens"
    )
    assert response.status_code == 400
    assert (
        response.json()["error"]
        == "Je foto is niet helemaal aangekomen. Probeer het opnieuw, met een betere verbinding."
    )
    assert not Dip.objects.exists()


def test_a_photo_whose_body_could_not_be_read_to_the_end_counts_as_cut_off():
    """A broken connection makes Django's parser stop with an error (which the CSRF check swallows): the file
    began and never ended. Django's parser calls the handlers in this order."""
    from apps.challenges.upload_handlers import InterruptedUploadDetector

    whole = InterruptedUploadDetector()
    whole.new_file("photo", "plons.jpg", "image/jpeg", 100)
    whole.receive_data_chunk(b"x" * 100, 0)
    whole.file_complete(100)
    assert not whole.interrupted

    broken = InterruptedUploadDetector()
    broken.new_file("photo", "plons.jpg", "image/jpeg", 100)
    broken.receive_data_chunk(b"x" * 50, 0)
    assert broken.interrupted
