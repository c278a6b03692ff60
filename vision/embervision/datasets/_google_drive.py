"""download_file_from_google_drive, as torchvision.datasets.utils's: Google Drive answers a request for a large
file with an HTML page instead of the file ("Virus scan warning": it cannot scan it), which either sets a
`download_warning*` cookie whose value confirms the download (the older page) or carries a form whose action and
hidden inputs (id, export, confirm, uuid) fetch the file (the current page). A "Quota exceeded" page is an error."""
import http.cookiejar
import os
import re
import shutil
from html.parser import HTMLParser
from typing import Dict, Iterator, List, Optional, Tuple
from urllib.error import HTTPError, URLError
from urllib.parse import urlencode, urlparse
from urllib.request import HTTPCookieProcessor, build_opener

from ._integrity import check_integrity

_DRIVE_URL = "https://drive.google.com/uc"  # tests point this at a local server
_CHUNK = 32 * 1024
_TITLE = re.compile(rb"<title>\s*Google Drive\s*-\s*(?P<api_response>[^<]+?)\s*</title>", re.IGNORECASE)


class _DownloadForm(HTMLParser):
    """The action and the named inputs of the page's download form (the first form, or the one named download-form)."""

    def __init__(self) -> None:
        super().__init__()
        self.action: Optional[str] = None
        self.fields: Dict[str, str] = {}
        self._in_form = False
        self._done = False

    def handle_starttag(self, tag: str, attrs: List[Tuple[str, Optional[str]]]) -> None:
        a = dict(attrs)
        if tag == "form" and not self._done and (self.action is None or a.get("id") == "download-form"):
            self.action, self.fields, self._in_form = a.get("action"), {}, True
        elif tag == "input" and self._in_form and a.get("name"):
            self.fields[a["name"]] = a.get("value") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self._in_form:
            self._in_form = False
            self._done = True


def _open(opener, url: str, file_id: str):
    try:
        return opener.open(url, timeout=60)
    except HTTPError as e:  # e.g. 404 for an id that is no shared file
        raise URLError(f"download_file_from_google_drive: could not download the file {file_id} from {url}: "
                       f"HTTP Error {e.code}: {e.reason}") from e
    except URLError as e:
        reason = getattr(e, "reason", e)
        raise URLError(f"download_file_from_google_drive: could not download the file {file_id} from {url}: "
                       f"{reason} (is the network or the server down?)") from e


def _peek(response) -> Tuple[bytes, Iterator[bytes], Optional[str]]:
    """The first chunk of the body, an iterator over the whole body, and the title of a Drive page (None if the
    body is no such page)."""
    first = response.read(_CHUNK)

    def body() -> Iterator[bytes]:
        yield first
        yield from iter(lambda: response.read(_CHUNK), b"")

    match = _TITLE.search(first)
    return first, body(), match.group("api_response").decode("utf-8", "replace") if match else None


def _confirm_cookie(jar: http.cookiejar.CookieJar) -> Optional[str]:
    for cookie in jar:
        if cookie.name.startswith("download_warning"):
            return cookie.value
    return None


def _confirmation_url(page: bytes, file_id: str) -> str:
    form = _DownloadForm()
    form.feed(page.decode("utf-8", "replace"))
    if form.action:
        fields = form.fields or {"id": file_id, "export": "download", "confirm": "t"}
        base = form.action if urlparse(form.action).scheme else _DRIVE_URL
        return base + ("&" if "?" in base else "?") + urlencode(fields)
    return _DRIVE_URL + "?" + urlencode({"id": file_id, "export": "download", "confirm": "t"})


def download_file_from_google_drive(file_id: str, root: str, filename: Optional[str] = None,
                                    md5: Optional[str] = None) -> None:
    """Downloads the Google Drive file file_id into root/filename (default: the id) unless a file with the expected
    MD5 (or SHA-256) is already there."""
    root = os.path.expanduser(root)
    if not filename:
        filename = file_id
    fpath = os.path.join(root, filename)
    os.makedirs(root, exist_ok=True)
    if check_integrity(fpath, md5):
        print("Using downloaded " + ("and verified " if md5 else "") + "file: " + fpath)
        return
    jar = http.cookiejar.CookieJar()
    opener = build_opener(HTTPCookieProcessor(jar))
    response = _open(opener, _DRIVE_URL + "?" + urlencode({"id": file_id, "export": "download"}), file_id)
    first, body, api_response = _peek(response)
    token = _confirm_cookie(jar)
    if token is not None or api_response == "Virus scan warning":
        response.close()
        if token is not None:
            url = _DRIVE_URL + "?" + urlencode({"id": file_id, "export": "download", "confirm": token})
        else:
            url = _confirmation_url(first, file_id)
        response = _open(opener, url, file_id)
        first, body, api_response = _peek(response)
    with response:
        if api_response == "Quota exceeded":
            raise RuntimeError(f"The daily quota of the file {filename} is exceeded and it can't be downloaded. This "
                               f"is a limitation of Google Drive and can only be overcome by trying again later.")
        if api_response is not None:
            raise RuntimeError(f"Google Drive answered the download of the file {file_id} with its page "
                               f"'{api_response}' instead of the file")
        partial = fpath + ".partial"
        with open(partial, "wb") as f:
            for chunk in body:
                f.write(chunk)
    shutil.move(partial, fpath)
    if md5 and not check_integrity(fpath, md5):
        raise RuntimeError(f"The MD5 checksum of the download file {fpath} does not match the one on record. Please "
                           f"delete the file and try again.")
