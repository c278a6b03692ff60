"""ember.is_autocast_enabled in scripted code: the CPU autocast state of the calling thread, read at run time
through the op aten::is_autocast_cpu_enabled (so a scripted function called inside `with ember.autocast('cpu')`
sees the region, as eager code does). Other device types' state lives in Python and cannot run here."""
import ember


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    if device_type != "cpu":
        raise RuntimeError(f"ember.is_autocast_enabled in scripted code reads the CPU autocast state only, "
                           f"got device_type '{device_type}'")
    return ember.ops.aten.is_autocast_cpu_enabled()
