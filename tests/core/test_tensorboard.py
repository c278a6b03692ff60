"""ember.utils.tensorboard.SummaryWriter: the event files it writes, read back with the tensorboard
package's own EventFileLoader and EventAccumulator, hold the values written."""
import glob
import io
import os

import numpy as np
import pytest

import ember

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing import event_accumulator  # noqa: E402
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader  # noqa: E402
from tensorboard.plugins.hparams import metadata as hp_metadata  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402

from ember.utils.tensorboard import SummaryWriter  # noqa: E402


def _accumulator(path):
    acc = event_accumulator.EventAccumulator(str(path), size_guidance={event_accumulator.IMAGES: 0,
                                                                      event_accumulator.HISTOGRAMS: 0,
                                                                      event_accumulator.TENSORS: 0,
                                                                      event_accumulator.SCALARS: 0})
    acc.Reload()
    return acc


def test_scalars_round_trip_and_file_starts_with_version(tmp_path):
    values = [0.5, 0.25, 1e-3, -2.0]
    with SummaryWriter(tmp_path) as w:
        for step, v in enumerate(values):
            w.add_scalar("loss/train", v, step * 10, walltime=1000.0 + step)
        w.add_scalar("acc", ember.tensor(0.75), 3)
        w.add_scalar("new", np.float64(1.5), 0, new_style=True, double_precision=True)
    files = glob.glob(str(tmp_path / "events.out.tfevents.*"))
    assert len(files) == 1
    events = list(EventFileLoader(files[0]).Load())
    assert events[0].file_version == "brain.Event:2"
    acc = _accumulator(tmp_path)
    got = acc.Scalars("loss/train")
    assert [e.step for e in got] == [0, 10, 20, 30]
    assert [e.wall_time for e in got] == [1000.0, 1001.0, 1002.0, 1003.0]
    np.testing.assert_allclose([e.value for e in got], values, rtol=1e-7)
    assert acc.Scalars("acc")[0].value == 0.75 and acc.Scalars("acc")[0].step == 3
    new = acc.Tensors("new")[0]
    assert tensor_util.make_ndarray(new.tensor_proto) == 1.5


def test_add_scalars_writes_one_run_per_key(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_scalars("run", {"a": 1.0, "b": 2.0}, 5)
    for key, value in (("a", 1.0), ("b", 2.0)):
        ev = _accumulator(tmp_path / f"run_{key}").Scalars("run")
        assert [(e.step, e.value) for e in ev] == [(5, value)]


def test_histogram_matches_numpy(tmp_path):
    rng = np.random.default_rng(0)
    data = rng.normal(size=500).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("w", ember.from_numpy(data), 7, bins=10)
        w.add_histogram("tf", data, 8)  # TensorBoard's default (exponential) buckets
    acc = _accumulator(tmp_path)
    h = acc.Histograms("w")[0]
    assert h.step == 7
    hv = h.histogram_value
    d = data.astype(float)
    counts, edges = np.histogram(d, bins=10)
    assert hv.num == 500 and hv.min == d.min() and hv.max == d.max()
    np.testing.assert_allclose([hv.sum, hv.sum_squares], [d.sum(), d.dot(d)], rtol=1e-12)
    # bucket_limit holds right edges; an empty bucket ending at the lowest edge comes first.
    assert sum(hv.bucket) == 500
    np.testing.assert_allclose(hv.bucket_limit, edges, rtol=1e-12)
    np.testing.assert_array_equal(hv.bucket, np.concatenate([[0], counts]))
    tf = acc.Histograms("tf")[0].histogram_value
    assert sum(tf.bucket) == 500 and tf.num == 500
    assert all(lo < hi for lo, hi in zip(tf.bucket_limit, tf.bucket_limit[1:]))


def _decode_png(png):
    from PIL import Image
    return np.asarray(Image.open(io.BytesIO(png)))


def test_images_decode_to_the_pixels_written(tmp_path):
    chw = np.random.default_rng(1).random((3, 4, 5)).astype(np.float32)
    gray_hw = (np.arange(12, dtype=np.uint8) * 20).reshape(3, 4)
    batch = np.random.default_rng(2).random((3, 1, 2, 2)).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_image("rgb", ember.from_numpy(chw), 1)
        w.add_image("gray", gray_hw, 2, dataformats="HW")
        w.add_images("grid", batch, 3)
    acc = _accumulator(tmp_path)
    rgb = acc.Images("rgb")[0]
    assert (rgb.step, rgb.height, rgb.width) == (1, 4, 5)
    np.testing.assert_array_equal(_decode_png(rgb.encoded_image_string),
                                  (chw.transpose(1, 2, 0) * 255).clip(0, 255).astype(np.uint8))
    gray = _decode_png(acc.Images("gray")[0].encoded_image_string)
    np.testing.assert_array_equal(gray, np.stack([gray_hw] * 3, 2))
    grid = _decode_png(acc.Images("grid")[0].encoded_image_string)
    assert grid.shape == (2, 6, 3)  # three 2x2 images side by side
    for i in range(3):
        np.testing.assert_array_equal(grid[:, 2 * i:2 * i + 2, 0], (batch[i, 0] * 255).astype(np.uint8))


def test_text_round_trips_through_the_text_plugin(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_text("notes", "first **run** — ünïcode", 4)
    acc = _accumulator(tmp_path)
    ev = acc.Tensors("notes/text_summary")[0]
    assert ev.step == 4
    assert tensor_util.make_ndarray(ev.tensor_proto)[0].decode() == "first **run** — ünïcode"
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData
    content = acc.PluginTagToContent("text")
    assert list(content) == ["notes/text_summary"]
    assert TextPluginData.FromString(content["notes/text_summary"]).version == 0


def test_hparams_session_written_as_tensorboard_reads_it(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_hparams({"lr": 0.01, "optimizer": "adam", "layers": 3, "ignored": None},
                      {"hparam/accuracy": 0.93}, hparam_domain_discrete={"optimizer": ["adam", "sgd"]},
                      run_name="trial1")
    run = tmp_path / "trial1"
    assert os.path.isdir(run)
    acc = _accumulator(run)
    content = acc.PluginTagToContent(hp_metadata.PLUGIN_NAME)
    exp = hp_metadata.parse_experiment_plugin_data(content[hp_metadata.EXPERIMENT_TAG])
    assert [h.name for h in exp.hparam_infos] == ["lr", "optimizer", "layers"]
    assert [v.string_value for v in exp.hparam_infos[1].domain_discrete.values] == ["adam", "sgd"]
    assert [m.name.tag for m in exp.metric_infos] == ["hparam/accuracy"]
    ssi = hp_metadata.parse_session_start_info_plugin_data(content[hp_metadata.SESSION_START_INFO_TAG])
    assert ssi.hparams["lr"].number_value == 0.01 and ssi.hparams["optimizer"].string_value == "adam"
    assert ssi.hparams["layers"].number_value == 3 and "ignored" not in ssi.hparams
    sei = hp_metadata.parse_session_end_info_plugin_data(content[hp_metadata.SESSION_END_INFO_TAG])
    assert sei.status == 1  # STATUS_SUCCESS
    assert acc.Scalars("hparam/accuracy")[0].value == pytest.approx(0.93)


def test_errors_as_pytorch(tmp_path):
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(AssertionError, match="Tensor should contain one element"):
            w.add_scalar("x", ember.ones(2))
        with pytest.raises(TypeError, match="hparam_dict and metric_dict should be dictionary."):
            w.add_hparams([("lr", 1)], {})
        with pytest.raises(TypeError, match=r"parameter: hparam_domain_discrete\[lr\] should be a list of same type"):
            w.add_hparams({"lr": 0.1}, {}, hparam_domain_discrete={"lr": ["a"]})
        with pytest.raises(ValueError, match="The input has no element."):
            w.add_histogram("h", np.zeros(0))


def test_default_log_dir_and_reopen_after_close(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_lr0.1")
    assert w.get_logdir().startswith("runs" + os.sep) and w.get_logdir().endswith("_lr0.1")
    w.close()
    w.add_scalar("after", 1.0, 0)  # a closed writer reopens a new file
    w.close()
    assert len(glob.glob(os.path.join(w.get_logdir(), "events.out.tfevents.*"))) == 2


class _Net(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = ember.nn.Linear(4, 8)
        self.block = ember.nn.Sequential(ember.nn.ReLU(), ember.nn.Linear(8, 2))

    def forward(self, x):
        return self.block(self.fc1(x) + 1)


def test_add_graph_is_read_back_by_tensorboard(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_graph(_Net(), ember.randn(3, 4))
    acc = event_accumulator.EventAccumulator(str(tmp_path))
    acc.Reload()
    graph = acc.Graph()
    nodes = {n.name: n for n in graph.node}
    assert [n.name for n in graph.node] == ["input/x", "_Net/fc1/fc1", "_Net/add", "_Net/block/0/block_0",
                                            "_Net/block/1/block_1", "output/output"]
    assert nodes["_Net/fc1/fc1"].op == "Linear" and nodes["_Net/add"].op == "aten::add"
    assert nodes["input/x"].op == nodes["output/output"].op == "IO Node"
    assert list(nodes["_Net/add"].input) == ["_Net/fc1/fc1"]
    assert list(nodes["output/output"].input) == ["_Net/block/1/block_1"]
    shapes = {name: [[d.size for d in s.dim] for s in n.attr["_output_shapes"].list.shape]
              for name, n in nodes.items()}
    assert shapes["_Net/fc1/fc1"] == [[3, 8]] and shapes["output/output"] == [[3, 2]]
    assert acc.Tags()["run_metadata"] == ["step1"]


def test_add_graph_without_input_and_untraceable_models(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_graph(_Net())  # no example input: the graph without shapes

    class Branchy(ember.nn.Module):
        def forward(self, x):
            return x if x.sum() > 0 else -x

    with SummaryWriter(tmp_path / "b") as w:
        with pytest.raises(ember.fx.proxy.TraceError, match="control flow"):
            w.add_graph(Branchy(), ember.randn(2))
