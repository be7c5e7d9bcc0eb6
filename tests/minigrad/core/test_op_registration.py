"""``import minigrad`` registers every op."""






def test_import_minigrad_registers_every_tensor_op():
    import subprocess
    import sys

    code = ("import minigrad; from minigrad.autograd import registered_ops; "
            "print(sorted(op.name for op in registered_ops('tensor')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    for name in ("cross_entropy", "conv2d", "max_pool2d", "matmul", "batch_norm"):
        assert f"'{name}'" in out.stdout
