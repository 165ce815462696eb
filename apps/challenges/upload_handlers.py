"""Upload handlers for the dip endpoint, installed per request before the body is read."""

from django.core.files.uploadhandler import FileUploadHandler, SkipFile


class InterruptedUploadDetector(FileUploadHandler):
    """Notices a file whose closing boundary never came (the connection broke off mid-photo).

    Django then leaves the file out of request.FILES without a word, and the dip would be stored
    without its photo. This handler passes every byte on to the next one and only takes note.
    """

    interrupted = False

    def receive_data_chunk(self, raw_data, start):
        return raw_data

    def file_complete(self, file_size):
        return None

    def upload_interrupted(self):
        self.interrupted = True


class SkipFiles(FileUploadHandler):
    """For a dip that will be refused anyway: read the form fields (the request id of a resend), not the photo."""

    def new_file(self, *args, **kwargs):
        raise SkipFile()

    def receive_data_chunk(self, raw_data, start):  # pragma: no cover - never reached after SkipFile
        return None

    def file_complete(self, file_size):  # pragma: no cover
        return None
