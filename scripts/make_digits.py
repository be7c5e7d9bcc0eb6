"""Regenerate ``minigrad/data/digits.npz`` from scikit-learn's bundled digits.

scikit-learn is only needed to *build* the file, never at runtime, so run this
with a throwaway interpreter rather than adding sklearn to the project deps::

    python3 -m venv /tmp/skl && /tmp/skl/bin/pip install scikit-learn
    /tmp/skl/bin/python scripts/make_digits.py

The arrays are stored as uint8 (values are 0..16 and labels 0..9) and
compressed, which keeps the file small enough to ship inside the wheel.
The script re-reads what it wrote and compares it with sklearn's arrays
exactly, so a bad conversion fails loudly instead of shipping.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "minigrad" / "data" / "digits.npz"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output .npz path")
    args = parser.parse_args(argv)

    try:
        from sklearn.datasets import load_digits
    except ImportError as exc:  # pragma: no cover - depends on the build venv
        raise SystemExit(
            "scikit-learn is required to build digits.npz; see this script's docstring"
        ) from exc

    bunch = load_digits()
    src_images = np.asarray(bunch.images)
    src_target = np.asarray(bunch.target)

    # Refuse anything that would not survive the uint8 cast unchanged.
    if src_images.shape != (1797, 8, 8) or src_target.shape != (1797,):
        raise SystemExit(f"unexpected shapes {src_images.shape} / {src_target.shape}")
    if not np.array_equal(src_images, np.round(src_images)):
        raise SystemExit("digit pixels are not integers")
    if src_images.min() < 0 or src_images.max() > 16:
        raise SystemExit("digit pixels outside 0..16")
    if src_target.min() < 0 or src_target.max() > 9:
        raise SystemExit("labels outside 0..9")

    images = src_images.astype(np.uint8)
    labels = src_target.astype(np.uint8)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, images=images, labels=labels)

    # Explicit checks rather than asserts, which `python -O` would skip.
    with np.load(args.out) as saved:
        ok = (
            saved["images"].dtype == np.uint8
            and saved["labels"].dtype == np.uint8
            and np.array_equal(saved["images"], src_images)
            and np.array_equal(saved["labels"], src_target)
            and np.array_equal(saved["images"].reshape(len(labels), 64), bunch.data)
        )
    if not ok:
        raise SystemExit(f"{args.out} does not match sklearn's load_digits()")

    size = args.out.stat().st_size
    print(f"wrote {args.out} ({size} bytes); matches sklearn's load_digits() exactly")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
