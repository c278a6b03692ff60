"""A profile of the digits recipe's first epoch (examples/digits, run as its train() runs it): the
convolution, matrix-product and loss calls the profile counts equal the calls counted independently
by forward hooks on the modules and a wrapper around the loss, and the memory the profile saw
allocated equals what the allocator's statistics moved."""
import ember
import ember.nn as nn
from ember.profiler import profile, record_function
from recipes import recipe_module


def _module(name):
    return recipe_module("digits", name)


def test_first_epoch_of_the_digits_recipe():
    train = _module("train")
    args = train.parse_args(["--epochs", "1", "--workers", "0", "--checkpoint", "/dev/null/unused"])
    counts = {"conv": 0, "linear": 0, "loss": 0}

    def count(kind):
        def hook(module, inputs, output):
            counts[kind] += 1
        return hook

    original_loss = train.F.cross_entropy

    def counted_loss(*a, **kw):
        counts["loss"] += 1
        return original_loss(*a, **kw)

    ember.manual_seed(args.seed)
    train_set, _ = train.datasets(args)
    loader = ember.utils.data.DataLoader(train_set, batch_size=args.batch_size, shuffle=True)
    model = train.small_cnn()
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            m.register_forward_hook(count("conv"))
        elif isinstance(m, nn.Linear):
            m.register_forward_hook(count("linear"))
    optimizer = ember.optim.Adam(model.parameters(), lr=args.lr)
    train.F.cross_entropy = counted_loss
    allocated_before = ember._C._cpu_memory_allocated()
    try:
        with profile(record_shapes=True, profile_memory=True) as prof:
            with record_function("epoch"):
                for x, y in loader:
                    loss = train.F.cross_entropy(model(x), y)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
            allocated_after = ember._C._cpu_memory_allocated()
    finally:
        train.F.cross_entropy = original_loss
    averages = {a.key: a for a in prof.key_averages()}
    batches = len(loader)
    assert counts["conv"] == 2 * batches and counts["linear"] == 2 * batches and counts["loss"] == batches
    assert averages["aten::convolution"].count == counts["conv"]
    assert averages["aten::addmm"].count == counts["linear"]
    assert averages["aten::_nll_loss"].count == counts["loss"]
    assert averages["Optimizer.step#Adam.step"].count == batches
    # the convolutions' shapes: both layers, on full batches of 8x8 images
    shapes = {str(a.input_shapes[:2]) for a in prof.key_averages(group_by_input_shape=True)
              if a.key == "aten::convolution"}
    assert "[[64, 1, 8, 8], [32, 1, 3, 3]]" in shapes and "[[64, 32, 8, 8], [64, 32, 3, 3]]" in shapes
    # self times partition the epoch's total
    (epoch,) = [e for e in prof.events() if e.name == "epoch"]
    inside = [e for e in prof.events() if e.thread == epoch.thread and e.time_range.start >= epoch.time_range.start
              and e.time_range.end <= epoch.time_range.end]
    assert abs(sum(e.self_cpu_time_total for e in inside) - epoch.cpu_time_total) <= 0.05 * epoch.cpu_time_total
    # memory: what the profile saw allocated and freed is what the allocator's statistics moved
    net = sum(m.bytes for m in prof._memory_events)
    assert net == allocated_after - allocated_before
    assert prof._memory_events[-1].total_allocated == allocated_after
    assert averages["epoch"].cpu_memory_usage == sum(
        m.bytes for m in prof._memory_events
        if m.thread == epoch.thread and epoch.time_range.start <= m.ts_us <= epoch.time_range.end)
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12))
