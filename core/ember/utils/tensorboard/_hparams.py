"""The three hparams-plugin summaries (experiment, session start with the values, session end) that
SummaryWriter.add_hparams writes, as PyTorch's summary.hparams builds them."""
from google.protobuf import struct_pb2
from tensorboard.compat.proto.summary_pb2 import Summary, SummaryMetadata
from tensorboard.plugins.hparams.api_pb2 import DataType, Experiment, HParamInfo, MetricInfo, MetricName, Status
from tensorboard.plugins.hparams.metadata import (EXPERIMENT_TAG, PLUGIN_DATA_VERSION, PLUGIN_NAME,
                                                  SESSION_END_INFO_TAG, SESSION_START_INFO_TAG)
from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData, SessionEndInfo, SessionStartInfo

from ... import _C


def _summary(tag, **content):
    data = HParamsPluginData(version=PLUGIN_DATA_VERSION, **content)
    smd = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=PLUGIN_NAME,
                                                                 content=data.SerializeToString()))
    return Summary(value=[Summary.Value(tag=tag, metadata=smd)])


def hparams(hparam_dict=None, metric_dict=None, hparam_domain_discrete=None):
    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    hparam_domain_discrete = hparam_domain_discrete or {}
    if not isinstance(hparam_domain_discrete, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in hparam_domain_discrete.items():
        if k not in hparam_dict or not isinstance(v, list) or not all(isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same type as "
                            f"hparam_dict[{k}].")
    hps = []
    ssi = SessionStartInfo()
    for k, v in hparam_dict.items():
        if v is None:
            continue
        # A bool is an int: logged as a number, as PyTorch does.
        if isinstance(v, (int, float)):
            ssi.hparams[k].number_value = v
            kind, field = "DATA_TYPE_FLOAT64", "number_value"
        elif isinstance(v, str):
            ssi.hparams[k].string_value = v
            kind, field = "DATA_TYPE_STRING", "string_value"
        elif isinstance(v, _C.TensorBase):
            ssi.hparams[k].number_value = float(v.detach().reshape(-1)[0])
            hps.append(HParamInfo(name=k, type=DataType.Value("DATA_TYPE_FLOAT64")))
            continue
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        domain = None
        if k in hparam_domain_discrete:
            domain = struct_pb2.ListValue(values=[struct_pb2.Value(**{field: d}) for d in hparam_domain_discrete[k]])
        hps.append(HParamInfo(name=k, type=DataType.Value(kind), domain_discrete=domain))
    exp = Experiment(hparam_infos=hps, metric_infos=[MetricInfo(name=MetricName(tag=k)) for k in metric_dict])
    return (_summary(EXPERIMENT_TAG, experiment=exp), _summary(SESSION_START_INFO_TAG, session_start_info=ssi),
            _summary(SESSION_END_INFO_TAG, session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS"))))
