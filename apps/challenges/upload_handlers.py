"""Upload handlers for the dip endpoint, installed per request before the body is read."""

from django.core.files.uploadhandler import FileUploadHandler, SkipFile


class InterruptedUploadDetector(FileUploadHandler):
    """Notices a file that began but never ended: its closing boundary never came (the body stopped
    mid-photo), or reading the body failed halfway (the connection broke).

    Django then leaves the file out of request.FILES without a word, and the dip would be stored
    without its photo. This handler passes every byte on to the next one and only takes note.
    """

    def __init__(self, request=None):
        super().__init__(request)
        self.started = 0
        self.completed = 0
        self.cut_off = False

    @property
    def interrupted(self) -> bool:
        return self.cut_off or self.started > self.completed

    def new_file(self, *args, **kwargs):
        super().new_file(*args, **kwargs)
        self.started += 1

    def receive_data_chunk(self, raw_data, start):
        return raw_data

    def file_complete(self, file_size):
        self.completed += 1
        return None

    def upload_interrupted(self):
        self.cut_off = True


class SkipFiles(FileUploadHandler):
    """For a dip that will be refused anyway: read the form fields (the request id of a resend), not the photo."""

    def new_file(self, *args, **kwargs):
        raise SkipFile()

    def receive_data_chunk(self, raw_data, start):  # pragma: no cover - never reached after SkipFile
        return None

    def file_complete(self, file_size):  # pragma: no cover
        return None
