import logging
import os
from typing import Any, Dict, Optional

import torch
from allennlp.training.callbacks.callback import TrainerCallback

logger = logging.getLogger(__name__)


@TrainerCallback.register("save_speecht5_ctc")
class SaveSpeechT5CtcCallback(TrainerCallback):
    """
    At the end of a successful training of a `speecht5_ctc` model, writes its encoder folder
    (`SpeechT5CtcModel.save_encoder`) with the best weights (`best.th` of the serialization
    folder, the ones `model.tar.gz` gets; the last weights where there is none). A failed
    training writes nothing. Add it to the trainer:
    `callbacks: [{ type: 'save_speecht5_ctc' }]`.

    # Parameters

    serialization_dir : `str`
        Passed by the trainer.
    folder : `str`, optional (default = `"speecht5_ctc"`)
        Where to write, relative to the serialization folder unless absolute.
    """

    def __init__(self, serialization_dir: str, folder: str = "speecht5_ctc") -> None:
        super().__init__(serialization_dir)
        self.folder = folder if os.path.isabs(folder) else os.path.join(serialization_dir, folder)

    def on_end(
        self, trainer, metrics: Optional[Dict[str, Any]] = None, epoch: Optional[int] = None, is_primary: bool = True, **kwargs
    ) -> None:
        if not is_primary or metrics is None:
            return
        model = trainer.model
        if not hasattr(model, "save_encoder"):
            raise TypeError(f"save_speecht5_ctc needs a speecht5_ctc model, got {type(model).__name__}")
        best = os.path.join(self.serialization_dir, "best.th")
        if os.path.isfile(best):
            model.load_state_dict(torch.load(best, map_location="cpu"))
        model.save_encoder(self.folder)

    @classmethod
    def outputs_from_archive(cls, model, serialization_dir: str, folder: str = "speecht5_ctc") -> None:
        """Writes the encoder folder of a finished training from its archived `model` (the recipe
        runner does, when it puts a training back from its released archive)."""
        if not hasattr(model, "save_encoder"):
            raise TypeError(f"save_speecht5_ctc needs a speecht5_ctc model, got {type(model).__name__}")
        model.save_encoder(cls(serialization_dir, folder).folder)
