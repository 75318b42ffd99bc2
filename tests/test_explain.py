"""explain(): the kernels' shared-memory accesses and their predicted wavefronts (CPU)."""
import pytest

import smemkit


@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype,width", [("float32", 4), ("float64", 8)])
def test_transpose_accesses(layout, dtype, width):
    e = smemkit.explain("transpose", (1000, 1000), layout, dtype)
    names = [a.name for a in e.accesses]
    assert names == ["tile row store", "tile column load"]
    tile, _ = smemkit._C._configs("transpose")[0]
    blocks = (-(-1000 // tile)) ** 2
    assert e.blocks == blocks
    for a in e.accesses:
        assert a.width == width
        assert a.instructions == blocks * tile * tile // 32  # one instruction per 32 elements
    store, load = e.accesses
    assert store.excess == 0
    if layout == "naive":
        assert load.worst_ways == (32 if width == 4 else 16)
        assert load.excess > 0
    else:
        assert load.excess == 0


@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("mnk", [(512, 512, 512), (4096, 4096, 4096), (1000, 777, 555)])
def test_sgemm_a_store_is_the_only_conflict_and_only_in_naive(layout, mnk):
    e = smemkit.explain("sgemm", mnk, layout)
    a_store = e.accesses[0]
    assert a_store.name.startswith("A-tile store")
    assert a_store.width == 4 and a_store.kind == "store"
    if layout == "naive":
        assert a_store.worst_ways == 2.0
        assert a_store.wavefronts == 2 * a_store.instructions  # the article's 2-way conflict
    else:
        assert a_store.excess == 0
    assert all(a.excess == 0 for a in e.accesses[1:])


def test_sgemm_instruction_counts_scale_with_k():
    e1 = smemkit.explain("sgemm", (1024, 1024, 512), "pad")
    e2 = smemkit.explain("sgemm", (1024, 1024, 1024), "pad")
    assert e2.total(what="instructions") == 2 * e1.total(what="instructions")
    assert smemkit.explain("sgemm", (64, 64, 0), "pad").total() == 0


def test_result_object():
    e = smemkit.explain("sgemm", (256, 256, 256), "naive")
    d = e.to_dict()
    assert d["totals"]["store"]["excess"] == e.total("store", "excess") > 0
    assert d["accesses"][0]["name"] == e.accesses[0].name
    text = repr(e)
    assert "A-tile store" in text and "total stores" in text and "naive" in text


@pytest.mark.parametrize("args,exc", [
    (("gemm", (2, 2)), ValueError),
    (("transpose", (2, 2, 2)), ValueError),
    (("sgemm", (2, 2)), ValueError),
    (("transpose", (2, 2), "xor"), ValueError),
    (("transpose", (2, 2), "pad", "float16"), TypeError),
    (("sgemm", (2, 2, 2), "pad", "float64"), TypeError),
    (("transpose", (-1, 2)), ValueError),
])
def test_errors(args, exc):
    with pytest.raises(exc):
        smemkit.explain(*args)
