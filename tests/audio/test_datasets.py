"""emberaudio.datasets on small corpora the tests write in each dataset's real layout (file names, transcript
formats, split lists), compared item by item with what was written; downloads from a local HTTP server (archive,
checksum, extraction), checksum mismatches, an unreachable server and missing folders raising clearly."""
import functools
import hashlib
import http.server
import os
import tarfile
import threading

import numpy as np
import pytest
import soundfile as sf

from emberaudio import datasets
from emberaudio.datasets import utils


def _wav(path, seconds=0.05, rate=16000, seed=0, fmt=None, subtype="PCM_16"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = np.random.default_rng(seed).uniform(-0.5, 0.5, int(seconds * rate)).astype(np.float32)
    sf.write(path, data, rate, format=fmt, subtype=subtype)
    return sf.read(path, dtype="float32")[0]


def _same(waveform, data):
    np.testing.assert_array_equal(waveform.numpy()[0], data)


def test_yesno(tmp_path):
    written = {name: _wav(str(tmp_path / "waves_yesno" / f"{name}.wav"), rate=8000, seed=i)
               for i, name in enumerate(["1_0_1_1_0_0_0_1", "0_0_0_0_1_1_1_1"])}
    ds = datasets.YESNO(tmp_path)
    assert len(ds) == 2
    waveform, rate, labels = ds[0]
    assert rate == 8000 and labels == [0, 0, 0, 0, 1, 1, 1, 1]
    _same(waveform, written["0_0_0_0_1_1_1_1"])
    assert ds[-1][2] == [1, 0, 1, 1, 0, 0, 0, 1]
    with pytest.raises(IndexError):
        ds[2]


def test_librispeech(tmp_path):
    base = tmp_path / "LibriSpeech" / "dev-clean"
    audio = {}
    for speaker, chapter, utts in [(84, 121123, [0, 1]), (174, 50561, [3])]:
        folder = base / str(speaker) / str(chapter)
        lines = []
        for u in utts:
            fid = f"{speaker}-{chapter}-{u:04d}"
            audio[fid] = _wav(str(folder / f"{fid}.flac"), seed=u + speaker, fmt="FLAC")
            lines.append(f"{fid} TRANSCRIPT NUMBER {u} OF {speaker}")
        (folder / f"{speaker}-{chapter}.trans.txt").write_text("\n".join(lines) + "\n")
    ds = datasets.LIBRISPEECH(tmp_path, url="dev-clean")
    assert len(ds) == 3
    waveform, rate, text, speaker, chapter, utt = ds[0]  # file ids sort as strings: "174-..." first
    assert (rate, text, speaker, chapter, utt) == (16000, "TRANSCRIPT NUMBER 3 OF 174", 174, 50561, 3)
    _same(waveform, audio["174-50561-0003"])
    assert ds[1][2:] == ("TRANSCRIPT NUMBER 0 OF 84", 84, 121123, 0)
    (base / "84" / "121123" / "84-121123.trans.txt").write_text("84-121123-0000 ONLY ONE\n")
    with pytest.raises(FileNotFoundError, match="84-121123-0001"):
        ds[2]


def test_libritts(tmp_path):
    folder = tmp_path / "LibriTTS" / "test-clean" / "1089" / "134686"
    fid = "1089_134686_000001_000001"
    data = _wav(str(folder / f"{fid}.wav"), rate=24000)
    (folder / f"{fid}.original.txt").write_text("He hoped there would be stew for dinner,")
    (folder / f"{fid}.normalized.txt").write_text("He hoped there would be stew for dinner,")
    ds = datasets.LIBRITTS(tmp_path, url="test-clean")
    waveform, rate, original, normalized, speaker, chapter, utt = ds[0]
    assert (rate, original, speaker, chapter, utt) == (24000, "He hoped there would be stew for dinner,", 1089,
                                                       134686, fid)
    _same(waveform, data)


def test_speechcommands_subsets(tmp_path):
    base = tmp_path / "SpeechCommands" / "speech_commands_v0.02"
    files = ["yes/0a7c2a8d_nohash_0.wav", "yes/0a7c2a8d_nohash_1.wav", "no/0b09edd3_nohash_0.wav",
             "up/0c5027de_nohash_2.wav"]
    written = {f: _wav(str(base / f), seed=i) for i, f in enumerate(files)}
    _wav(str(base / "_background_noise_" / "white_noise.wav"))
    (base / "validation_list.txt").write_text("no/0b09edd3_nohash_0.wav\n")
    (base / "testing_list.txt").write_text("up/0c5027de_nohash_2.wav\n")
    everything = datasets.SPEECHCOMMANDS(tmp_path)
    assert len(everything) == 4
    waveform, rate, label, speaker, number = everything[0]
    assert (rate, label, speaker, number) == (16000, "no", "0b09edd3", 0)
    _same(waveform, written["no/0b09edd3_nohash_0.wav"])
    assert [d[2] for d in datasets.SPEECHCOMMANDS(tmp_path, subset="training")] == ["yes", "yes"]
    assert [d[2] for d in datasets.SPEECHCOMMANDS(tmp_path, subset="validation")] == ["no"]
    assert [d[3] for d in datasets.SPEECHCOMMANDS(tmp_path, subset="testing")] == ["0c5027de"]
    with pytest.raises(ValueError, match="subset"):
        datasets.SPEECHCOMMANDS(tmp_path, subset="train")


def test_vctk_092(tmp_path):
    base = tmp_path / "VCTK-Corpus-0.92"
    audio = base / "wav48_silence_trimmed"
    written = {}
    for speaker, utts in [("p225", ["001", "002"]), ("p226", ["001"])]:
        for u in utts:
            (base / "txt" / speaker).mkdir(parents=True, exist_ok=True)
            (base / "txt" / speaker / f"{speaker}_{u}.txt").write_text(f"Please call Stella {speaker} {u}.\n")
            for mic in ("mic1", "mic2"):
                written[(speaker, u, mic)] = _wav(str(audio / speaker / f"{speaker}_{u}_{mic}.flac"), rate=48000,
                                                  fmt="FLAC", seed=len(written))
    os.remove(audio / "p225" / "p225_002_mic2.flac")  # some utterances lack one microphone
    _wav(str(audio / "p315" / "p315_001_mic2.flac"), fmt="FLAC")  # p315 has no text
    ds = datasets.VCTK_092(tmp_path)
    assert [(d[3], d[4]) for d in ds] == [("p225", "001"), ("p226", "001")]
    waveform, rate, text, speaker, utt = ds[1]
    assert (rate, text) == (48000, "Please call Stella p226 001.")
    _same(waveform, written[("p226", "001", "mic2")])
    assert len(datasets.VCTK_092(tmp_path, mic_id="mic1")) == 3
    with pytest.raises(RuntimeError, match="mic_id"):
        datasets.VCTK_092(tmp_path, mic_id="mic3")


def test_ljspeech(tmp_path):
    base = tmp_path / "LJSpeech-1.1"
    data = _wav(str(base / "wavs" / "LJ001-0001.wav"), rate=22050)
    _wav(str(base / "wavs" / "LJ001-0002.wav"), rate=22050, seed=1)
    (base / "metadata.csv").write_text('LJ001-0001|Printing, in the only sense "with which" we are|Printing, in '
                                       'the only sense "with which" we are\nLJ001-0002|in being comparatively '
                                       'modern.|in being comparatively modern.\n')
    ds = datasets.LJSPEECH(tmp_path)
    waveform, rate, text, normalized = ds[0]
    assert rate == 22050 and text == 'Printing, in the only sense "with which" we are'  # quotes kept verbatim
    _same(waveform, data)
    assert ds[1][3] == "in being comparatively modern."
    (base / "metadata.csv").write_text("LJ001-0001|only two\n")
    with pytest.raises(RuntimeError, match="line 1 has 2 fields"):
        datasets.LJSPEECH(tmp_path)


def test_gtzan(tmp_path):
    written = {}
    for genre, n in [("blues", 0), ("blues", 1), ("rock", 99)]:
        written[(genre, n)] = _wav(str(tmp_path / "genres" / genre / f"{genre}.{n:05d}.wav"), rate=22050, seed=n)
    ds = datasets.GTZAN(tmp_path)
    assert [d[2] for d in ds] == ["blues", "blues", "rock"]
    waveform, rate, label = ds[2]
    assert rate == 22050
    _same(waveform, written[("rock", 99)])
    with pytest.raises(ValueError, match="subset"):
        datasets.GTZAN(tmp_path, subset="training")


def test_cmuarctic(tmp_path):
    base = tmp_path / "ARCTIC" / "cmu_us_aew_arctic"
    data = _wav(str(base / "wav" / "arctic_a0001.wav"))
    _wav(str(base / "wav" / "arctic_b0539.wav"), seed=1)
    (base / "etc").mkdir(parents=True)
    (base / "etc" / "txt.done.data").write_text('( arctic_a0001 "Author of the danger trail, Philip Steels, etc." )\n'
                                                '( arctic_b0539 "Who\'s there?" )\n')
    ds = datasets.CMUARCTIC(tmp_path)
    waveform, rate, text, utt = ds[0]
    assert (rate, text, utt) == (16000, "Author of the danger trail, Philip Steels, etc.", "a0001")
    _same(waveform, data)
    assert ds[1][2:] == ("Who's there?", "b0539")


def test_commonvoice(tmp_path):
    clips = tmp_path / "clips"
    data = _wav(str(clips / "common_voice_en_1.mp3"), rate=48000, fmt="MP3", subtype="MPEG_LAYER_III")
    (tmp_path / "train.tsv").write_text("client_id\tpath\tsentence\tup_votes\tdown_votes\tage\tgender\taccent\n"
                                        "abc123\tcommon_voice_en_1.mp3\tHello there.\t2\t0\ttwenties\tmale\t\n")
    ds = datasets.COMMONVOICE(tmp_path)
    waveform, rate, row = ds[0]
    assert rate == 48000 and row["sentence"] == "Hello there." and row["client_id"] == "abc123"
    assert waveform.shape[1] == data.shape[0]
    with pytest.raises(RuntimeError, match="dev.tsv"):
        datasets.COMMONVOICE(tmp_path, tsv="dev.tsv")


def test_tedlium_segments_and_dictionary(tmp_path):
    base = tmp_path / "TEDLIUM_release1" / "train"
    talk = _wav(str(base / "sph" / "AaronHuey_2010X.sph"), seconds=3.0, fmt="NIST")
    (base / "stm").mkdir(parents=True)
    (base / "stm" / "AaronHuey_2010X.stm").write_text(
        "AaronHuey_2010X 1 AaronHuey_2010X 0.50 1.25 <o,f0,male> i 'm here today\n"
        "AaronHuey_2010X 1 AaronHuey_2010X 2.00 2.90 <o,f0,male> to show my photographs\n")
    (tmp_path / "TEDLIUM_release1" / "TEDLIUM.150K.dic").write_text("today T AH D EY\nhere HH IY R\nuh\n")
    ds = datasets.TEDLIUM(tmp_path)
    assert len(ds) == 2
    waveform, rate, text, talk_id, speaker, identifier = ds[1]
    assert (rate, text, talk_id, identifier) == (16000, "to show my photographs", "AaronHuey_2010X", "<o,f0,male>")
    _same(waveform, talk[32000:46400])
    assert ds.phoneme_dict == {"today": ("T", "AH", "D", "EY"), "here": ("HH", "IY", "R"), "uh": ()}
    with pytest.raises(RuntimeError, match="release4"):
        datasets.TEDLIUM(tmp_path, release="release4")
    with pytest.raises(RuntimeError, match="doesn't exist"):
        datasets.TEDLIUM(tmp_path, subset="dev")


def test_librimix(tmp_path):
    base = tmp_path / "Libri2Mix" / "wav8k" / "min" / "dev"
    written = {}
    for folder in ("mix_clean", "s1", "s2"):
        for i, name in enumerate(["61-70968-0000_8842-302203-0000.wav", "84-121123-0001_174-50561-0002.wav"]):
            written[(folder, name)] = _wav(str(base / folder / name), rate=8000, seed=i + len(folder))
    ds = datasets.LibriMix(tmp_path, subset="dev")
    rate, mixed, sources = ds[1]
    assert rate == 8000 and len(sources) == 2
    _same(mixed, written[("mix_clean", "84-121123-0001_174-50561-0002.wav")])
    _same(sources[1], written[("s2", "84-121123-0001_174-50561-0002.wav")])
    _wav(str(base / "s2" / "61-70968-0000_8842-302203-0000.wav"), seconds=0.02, rate=8000)
    with pytest.raises(ValueError, match="Different waveform shapes"):
        ds[0]
    with pytest.raises(ValueError, match="sample rate should be 16000"):
        (tmp_path / "Libri2Mix" / "wav16k" / "min").mkdir(parents=True)
        os.symlink(base, tmp_path / "Libri2Mix" / "wav16k" / "min" / "dev")
        datasets.LibriMix(tmp_path, subset="dev", sample_rate=16000)[0]
    with pytest.raises(RuntimeError, match="LibriMix scripts"):
        datasets.LibriMix(tmp_path, subset="test")


@pytest.fixture
def http_root(tmp_path):
    """A local HTTP server over tmp_path/'served' (the machine is offline: the download path is still real)."""
    served = tmp_path / "served"
    served.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield served, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_download_extract_and_checksums(tmp_path, http_root):
    served, base = http_root
    staging = tmp_path / "staging" / "waves_yesno"
    data = _wav(str(staging / "0_1_0_1_0_1_0_1.wav"), rate=8000)
    with tarfile.open(served / "waves_yesno.tar.gz", "w:gz") as t:
        t.add(staging, arcname="waves_yesno")
    root = tmp_path / "root"
    ds = datasets.YESNO(root, url=f"{base}/waves_yesno.tar.gz", download=True)
    assert len(ds) == 1 and ds[0][2] == [0, 1, 0, 1, 0, 1, 0, 1]
    _same(ds[0][0], data)
    digest = hashlib.md5((served / "waves_yesno.tar.gz").read_bytes()).hexdigest()
    assert utils.check_integrity(str(root / "waves_yesno.tar.gz"), digest)
    sha = hashlib.sha256((served / "waves_yesno.tar.gz").read_bytes()).hexdigest()
    assert utils.check_integrity(str(root / "waves_yesno.tar.gz"), sha)
    with pytest.raises(RuntimeError, match="does not match its checksum"):
        utils.download_url(f"{base}/waves_yesno.tar.gz", str(tmp_path / "again.tar.gz"), checksum="0" * 32)
    assert not (tmp_path / "again.tar.gz").exists()


def test_extract_refuses_escaping_members(tmp_path):
    evil = tmp_path / "evil.tar"
    (tmp_path / "x.txt").write_text("x")
    with tarfile.open(evil, "w") as t:
        t.add(tmp_path / "x.txt", arcname="../escaped.txt")
    with pytest.raises(RuntimeError, match="outside"):
        utils.extract_archive(str(evil), str(tmp_path / "out"))


def test_offline_and_missing_data_errors(tmp_path):
    with pytest.raises(RuntimeError, match="set `download=True`"):
        datasets.LIBRISPEECH(tmp_path, url="dev-clean")
    with pytest.raises(RuntimeError, match=r"could not download http://127\.0\.0\.1:9/waves_yesno\.tar\.gz"):
        datasets.YESNO(tmp_path, url="http://127.0.0.1:9/waves_yesno.tar.gz", download=True)
