"""The zip container of ember.save files: uncompressed records under one folder, each record's data
starting at a multiple of 64 bytes in the file (padding in a local-header extra field, as PyTorch
does), so storages could later be memory-mapped; reading checks names, sizes, bounds and CRCs."""
import struct
import sys
import zipfile
import zlib

FORMAT_VERSION = 1  # bump when a reader of the old version would misread new files
_PREFIX = "archive"
_PAD_ID = 0x4246  # "FB": the extra-field id of the alignment padding
_DOS_EPOCH = (1980, 1, 1, 0, 0, 0)  # fixed timestamps: saving the same object gives the same bytes


class ArchiveError(RuntimeError):
    """The file is not an ember archive, or is truncated or corrupt."""


class ArchiveWriter:
    ALIGN = 64

    def __init__(self, fh):
        self.zf = zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED, allowZip64=True)

    def _info(self, name, size):
        info = zipfile.ZipInfo(f"{_PREFIX}/{name}", date_time=_DOS_EPOCH)
        info.compress_type = zipfile.ZIP_STORED
        info.file_size = size
        info.external_attr = 0o644 << 16
        # zipfile appends a 20-byte ZIP64 extra field to the local header when it expects > 2 GiB.
        zip64 = size * 1.05 > zipfile.ZIP64_LIMIT
        header = 30 + len(info.filename.encode("ascii")) + 4 + (20 if zip64 else 0)
        pad = -(self.zf.fp.tell() + header) % self.ALIGN
        info.extra = struct.pack("<HH", _PAD_ID, pad) + b"Z" * pad
        return info, zip64

    def write_stream(self, name, size, produce):
        """A record of `size` bytes, written by produce(write)."""
        info, zip64 = self._info(name, size)
        with self.zf.open(info, "w", force_zip64=zip64) as dest:
            produce(dest.write)

    def write_record(self, name, data):
        self.write_stream(name, len(data), lambda write: write(data))

    def close(self):
        self.zf.close()


class ArchiveReader:
    Error = ArchiveError

    def __init__(self, fh, source):
        self.source = source
        start = fh.tell()
        head = fh.read(4)
        self.size = fh.seek(0, 2)
        fh.seek(start)
        if not head:
            self.fail("is empty")
        if head != b"PK\x03\x04":
            if head[:1] == b"\x80":
                self.fail("is a plain pickle stream (a legacy torch.save file, or pickle.dump output), not an ember "
                          "archive: ember.load reads only files written by ember.save")
            self.fail(f"is not an ember archive (it does not start with the zip signature b'PK\\x03\\x04', "
                      f"but with {head!r})")
        try:
            self.zf = zipfile.ZipFile(fh)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, struct.error) as e:
            self.fail(f"is not a readable zip archive; it is truncated or corrupt ({type(e).__name__}: {e})", e)
        names = self.zf.namelist()
        pickles = [n for n in names if n.count("/") == 1 and n.endswith("/data.pkl")]
        if len(pickles) != 1:
            self.fail("has no data.pkl record: not an ember archive" if not pickles
                      else f"has several data.pkl records ({', '.join(pickles)})")
        self.prefix = pickles[0].split("/", 1)[0]
        if f"{self.prefix}/ember_format_version" not in names:
            pytorch = any(f"{self.prefix}/{n}" in names for n in ("version", ".format_version"))
            self.fail("has no ember_format_version record: it looks like a PyTorch checkpoint, and ember.load reads "
                      "only files written by ember.save" if pytorch else "has no ember_format_version record: not "
                      "an ember archive, or a damaged one")
        text = self.read_record("ember_format_version", limit=64)
        try:
            version = int(text.decode("ascii"))
        except (UnicodeDecodeError, ValueError):
            self.fail(f"has a malformed ember_format_version record {text[:20]!r}")
        if not 1 <= version <= FORMAT_VERSION:
            self.fail(f"was written in ember archive format version {version}; this ember reads versions 1 to "
                      f"{FORMAT_VERSION}" + (" (upgrade ember)" if version > FORMAT_VERSION else ""))
        order = self.read_record("byteorder", limit=16)
        if order not in (b"little", b"big"):
            self.fail(f"has a malformed byteorder record {order!r}")
        if order.decode() != sys.byteorder:
            self.fail(f"stores its tensors {order.decode()}-endian, and this machine is {sys.byteorder}-endian: "
                      f"byte-swapping on load is not supported")

    def fail(self, what, cause=None):
        raise ArchiveError(f"ember.load: {self.source} {what}") from cause

    def _info(self, name):
        full = f"{self.prefix}/{name}"
        try:
            info = self.zf.getinfo(full)
        except KeyError:
            self.fail(f"has no record {full}: the file is truncated or corrupt")
        if info.compress_type != zipfile.ZIP_STORED:
            self.fail(f"has record {full} compressed with zip method {info.compress_type}; ember archives store "
                      f"records uncompressed")
        if info.header_offset + 30 + info.compress_size > self.size or info.compress_size != info.file_size:
            self.fail(f"has record {full} of {info.file_size} bytes, which does not fit in the file of {self.size} "
                      f"bytes: the file is truncated or corrupt")
        return info

    def _corrupt(self, info, e):
        self.fail(f"has a corrupt record {info.filename} ({type(e).__name__}: {e})", e)

    def read_record(self, name, limit=None):
        info = self._info(name)
        if limit is not None and info.file_size > limit:
            self.fail(f"has a record {info.filename} of {info.file_size} bytes, more than the {limit} it can hold")
        try:
            return self.zf.read(info)
        except (zipfile.BadZipFile, EOFError, zlib.error, ValueError, struct.error) as e:
            self._corrupt(info, e)

    def check_record(self, name, nbytes):
        info = self._info(name)
        if info.file_size != nbytes:
            self.fail(f"has record {info.filename} of {info.file_size} bytes, but its storage is {nbytes} bytes: "
                      f"the file is truncated or corrupt")

    def read_into(self, name, nbytes, chunk, consume):
        """Streams the record to consume(offset, bytes) in chunks; the CRC is checked at the end."""
        info = self._info(name)
        try:
            with self.zf.open(info) as src:
                off = 0
                while off < nbytes:
                    data = src.read(min(chunk, nbytes - off))
                    if not data:
                        raise EOFError(f"the record ends after {off} of its {nbytes} bytes")
                    consume(off, data)
                    off += len(data)
                if src.read(1):
                    raise ValueError(f"the record has more than {nbytes} bytes")
        except (zipfile.BadZipFile, EOFError, zlib.error, ValueError, struct.error) as e:
            self._corrupt(info, e)
