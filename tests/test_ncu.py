"""`cudamm.inspect.ncu_metrics`: Nsight Compute counters of one launch of a registered kernel, in a child process."""
import shutil

import pytest

from cudamm.inspect import _nvidia_tool, ncu_metrics, parse_ncu_csv


def test_missing_ncu_is_named():
    with pytest.raises(RuntimeError, match="ncu .Nsight Compute. not found"):
        ncu_metrics("naive", "gpu__time_duration.sum", 64, 64, 64, ncu="no-such-ncu")


def test_parse_skips_profiler_lines():
    text = ('==PROF== Connected\n"ID","Metric Name","Metric Value"\n"0","a.sum","1,024"\n"0","b.pct","n/a"\n'
            '"1","a.sum","7"\n==PROF== Disconnected\n')
    assert parse_ncu_csv(text) == [{"a.sum": 1024.0, "b.pct": "n/a"}, {"a.sum": 7.0}]


@pytest.mark.gpu
def test_ncu_counts_one_launch():
    if _nvidia_tool("ncu") is None: pytest.skip("ncu (Nsight Compute) is not installed")
    m = n = k = 256
    got = ncu_metrics("naive", ["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "l1tex__t_sector_hit_rate.pct",
                                "gpu__time_duration.sum"], m, n, k)
    assert got["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] == m * n * k   # one FFMA per multiply-add
    assert 0 <= got["l1tex__t_sector_hit_rate.pct"] <= 100 and got["gpu__time_duration.sum"] > 0
    # a non-default configuration reaches the child, and a kernel from a later chapter is found by its mangled name
    got = ncu_metrics("vectorize", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", m, n, k, config=dict(BK=8, UNROLL=8))
    assert got["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] >= m * n * k
