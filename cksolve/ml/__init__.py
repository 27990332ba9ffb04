"""CK's ML kernel selector, both ways: model directories read and written, training, evaluation.

    from cksolve.ml import read_model_dir, read_measurements, train, evaluate

    model = read_model_dir("ck/dispatcher/heuristics/models/grouped_conv_forward_bf16_gfx950")
    train(["bench.csv"], "gfx950", "bf16", "forward", "my_model")     # the kernel selector (ml.selector)
    train(["bench.csv"], "gfx950", "bf16", "forward", "ck_model", like_ck=True)   # CK's trainer and defaults
    evaluate("my_model", ["held_out.csv"])                            # efficiency vs the measured best

lightgbm (and scikit-learn, for training) are the optional extra ``cksolve[ml]``;
without them a model command says so in one line (``lgbm.MissingML``).
Formats, semantics and sources: docs/selection.md.
"""

from ..features import MODEL_SEMANTICS, KernelName, RowMaker, ShortName, read_kernel_name
from .efficiency import picks, summary
from .lgbm import INSTALL, MissingML
from .training_data import CK_COLUMNS, Measurements, read_measurements
from .modeldir import MANIFEST_FILE, MODEL_FILE, SPEC_FILE, ModelDir, read_model_dir, write_model_dir
from .evaluate_model import evaluate, evaluate_text
from .training import train  # lightgbm and scikit-learn load on call (lgbm.lightgbm)

__all__ = ["read_model_dir", "write_model_dir", "read_measurements", "train", "evaluate", "evaluate_text",
           "ModelDir", "Measurements", "KernelName", "ShortName", "read_kernel_name", "RowMaker", "MODEL_SEMANTICS",
           "CK_COLUMNS", "MissingML", "INSTALL", "picks", "summary", "MODEL_FILE", "SPEC_FILE", "MANIFEST_FILE"]

