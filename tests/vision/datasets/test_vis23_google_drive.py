"""download_file_from_google_drive against a local server that answers with Google Drive's page shapes: a small
file served directly, the older confirmation (a download_warning cookie whose value goes back as confirm=), the
current virus-scan page (a form to drive.usercontent.google.com with hidden id/export/confirm/uuid inputs), the
quota page, a server that is down, and download_url's dispatch of Drive file URLs."""
import hashlib
from urllib.error import URLError

import pytest

from embervision.datasets import _google_drive
from embervision.datasets.utils import download_file_from_google_drive, download_url

SMALL = b"small file body\n" * 10
BIG = bytes(range(256)) * 700  # larger than one read chunk

VIRUS_SCAN_PAGE = (
    '<!DOCTYPE html><html><head><title>Google Drive - Virus scan warning</title><meta http-equiv="content-type" '
    'content="text/html; charset=utf-8"/></head><body><div class="uc-main"><div id="uc-text"><p class="uc-warning-'
    'caption">Google Drive can\'t scan this file for viruses.</p><p class="uc-warning-subcaption"><span class="uc-'
    'name-size"><a href="/open?id={id}">big.tar.gz</a> (175K)</span> is too large for Google to scan for viruses. '
    'Would you still like to download this file?</p><form id="download-form" action="{action}" method="get"><input '
    'type="submit" id="uc-download-link" class="goog-inline-block jfk-button jfk-button-action" value="Download '
    'anyway"/><input type="hidden" name="id" value="{id}"><input type="hidden" name="export" value="download">'
    '<input type="hidden" name="confirm" value="t"><input type="hidden" name="uuid" value="{uuid}"></form></div>'
    '</div><div class="uc-footer"><hr class="uc-footer-divider"></div></body></html>')
OLD_WARNING_PAGE = ('<html><head><title>Google Drive - Virus scan warning</title></head><body>'
                    '<a id="uc-download-link" href="/uc?export=download&amp;confirm=AbCd&amp;id={id}">Download anyway'
                    '</a></body></html>')
QUOTA_PAGE = ('<html><head><title>Google Drive - Quota exceeded</title></head><body><p>Sorry, you can\'t view or '
              'download this file at this time.</p></body></html>')
HTML = {"Content-Type": "text/html; charset=utf-8"}


@pytest.fixture
def drive(local_server, monkeypatch):
    url, routes = local_server
    monkeypatch.setattr(_google_drive, "_DRIVE_URL", url + "/uc")
    seen = []

    def uc(request, query):
        seen.append(("uc", query))
        file_id = query.get("id")
        if query.get("export") != "download":
            return 400, {}, b"bad request"
        if file_id == "small":
            return 200, {"Content-Disposition": 'attachment; filename="small.txt"'}, SMALL
        if file_id == "old":
            if query.get("confirm") == "AbCd" and "download_warning_1_old=AbCd" in (request.headers["Cookie"] or ""):
                return 200, {}, BIG
            return 200, dict(HTML, **{"Set-Cookie": "download_warning_1_old=AbCd; Path=/"}), \
                OLD_WARNING_PAGE.format(id=file_id).encode()
        if file_id == "big":
            page = VIRUS_SCAN_PAGE.format(id=file_id, action=url + "/download", uuid="5f1e-77")
            return 200, HTML, page.encode()
        if file_id == "signin":  # a file not shared publicly
            return 200, HTML, b"<html><head><title>Google Drive - Sign-in</title></head><body></body></html>"
        if file_id == "quota":
            return 200, HTML, QUOTA_PAGE.encode()
        return 404, HTML, b"<html><head><title>Google Drive - 404</title></head></html>"

    def usercontent(request, query):
        seen.append(("download", query))
        if query == {"id": "big", "export": "download", "confirm": "t", "uuid": "5f1e-77"}:
            return 200, {"Content-Type": "application/octet-stream"}, BIG
        return 400, HTML, b"<html><head><title>Google Drive - Bad Request</title></head></html>"

    routes["/uc"] = uc
    routes["/download"] = usercontent
    return url, seen


def test_small_file_is_served_directly(drive, tmp_path):
    download_file_from_google_drive("small", str(tmp_path), "s.txt", md5=hashlib.md5(SMALL).hexdigest())
    assert (tmp_path / "s.txt").read_bytes() == SMALL
    assert [kind for kind, _ in drive[1]] == ["uc"]


def test_default_filename_is_the_id_and_a_verified_file_is_reused(drive, tmp_path, capsys):
    download_file_from_google_drive("small", str(tmp_path))
    assert (tmp_path / "small").read_bytes() == SMALL
    download_file_from_google_drive("small", str(tmp_path), md5=hashlib.sha256(SMALL).hexdigest())
    assert "Using downloaded and verified file" in capsys.readouterr().out
    assert len(drive[1]) == 1


def test_virus_scan_form_is_submitted_with_its_hidden_fields(drive, tmp_path):
    download_file_from_google_drive("big", str(tmp_path), "big.tar.gz", md5=hashlib.md5(BIG).hexdigest())
    assert (tmp_path / "big.tar.gz").read_bytes() == BIG
    assert drive[1][1] == ("download", {"id": "big", "export": "download", "confirm": "t", "uuid": "5f1e-77"})
    assert not (tmp_path / "big.tar.gz.partial").exists()


def test_download_warning_cookie_confirms(drive, tmp_path):
    download_file_from_google_drive("old", str(tmp_path), "old.bin")
    assert (tmp_path / "old.bin").read_bytes() == BIG
    assert drive[1][1] == ("uc", {"id": "old", "export": "download", "confirm": "AbCd"})


def test_quota_exceeded_raises(drive, tmp_path):
    with pytest.raises(RuntimeError, match="The daily quota of the file q.zip is exceeded"):
        download_file_from_google_drive("quota", str(tmp_path), "q.zip")
    assert not (tmp_path / "q.zip").exists()


def test_unknown_id_raises_naming_the_file(drive, tmp_path):
    with pytest.raises(URLError, match="could not download the file nosuch .*HTTP Error 404"):
        download_file_from_google_drive("nosuch", str(tmp_path))
    assert not (tmp_path / "nosuch").exists()


def test_other_drive_page_is_not_saved_as_the_file(drive, tmp_path):
    with pytest.raises(RuntimeError, match="file signin with its page 'Sign-in'"):
        download_file_from_google_drive("signin", str(tmp_path))
    assert not (tmp_path / "signin").exists()


def test_wrong_md5_raises(drive, tmp_path):
    with pytest.raises(RuntimeError, match="MD5 checksum of the download file .*s.txt does not match"):
        download_file_from_google_drive("small", str(tmp_path), "s.txt", md5="0" * 32)


def test_offline_raises_url_error_naming_the_file(closed_port_url, tmp_path, monkeypatch):
    monkeypatch.setattr(_google_drive, "_DRIVE_URL", closed_port_url + "/uc")
    with pytest.raises(URLError, match="could not download the file abc123"):
        download_file_from_google_drive("abc123", str(tmp_path), "f.zip")
    assert not (tmp_path / "f.zip").exists()


def test_download_url_sends_drive_file_urls_through_the_drive_downloader(drive, tmp_path):
    download_url("https://drive.google.com/file/d/big/view?usp=sharing", str(tmp_path), "b.bin",
                 md5=hashlib.md5(BIG).hexdigest())
    assert (tmp_path / "b.bin").read_bytes() == BIG
    assert drive[1][0][1]["id"] == "big"


def _tar(members):
    import io
    import tarfile
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_caltech256_downloads_its_archive_from_drive(local_server, tmp_path, monkeypatch):
    import io

    import numpy as np
    from PIL import Image

    from embervision.datasets import Caltech256
    url, routes = local_server
    monkeypatch.setattr(_google_drive, "_DRIVE_URL", url + "/uc")
    png = io.BytesIO()
    pixels = np.arange(48, dtype=np.uint8).reshape(4, 4, 3)
    Image.fromarray(pixels).save(png, "JPEG", quality=100)
    archive = _tar({"256_ObjectCategories/001.ak47/001_0001.jpg": png.getvalue()})

    def uc(request, query):  # the archive is large: Drive answers with its virus-scan page first
        if query.get("confirm") == "t" and query.get("uuid") == "u1":
            return 200, {}, archive
        page = VIRUS_SCAN_PAGE.format(id=query["id"], action=url + "/uc", uuid="u1")
        return 200, HTML, page.encode()

    routes["/uc"] = uc
    monkeypatch.setattr(Caltech256, "resources", [(
        "https://drive.google.com/file/d/1r6o0pSROcV1_VwT4oSjA2FBUSCWGuxLK", "256_ObjectCategories.tar",
        hashlib.md5(archive).hexdigest())])
    ds = Caltech256(str(tmp_path), download=True)
    assert len(ds) == 1 and ds.categories == ["001.ak47"] and ds[0][1] == 0
    assert (tmp_path / "caltech256" / "256_ObjectCategories.tar").is_file()
