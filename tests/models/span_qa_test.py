import pytest
import torch
from allennlp.common import Params
from allennlp.common.testing import ModelTestCase
from allennlp.data import Batch
from allennlp.models import Model

from tests.conftest import FIXTURES


class TestSpanQA(ModelTestCase):
    def setup_method(self):
        super().setup_method()
        self.set_up_model(FIXTURES / "bidaf_tiny.jsonnet", FIXTURES / "squad_tiny.json")

    def test_train_save_load_predict_consistency(self):
        self.ensure_model_can_train_save_and_load(self.param_file, tolerance=1e-4)

    def test_batch_predictions_are_consistent(self):
        self.ensure_batch_predictions_are_consistent(keys_to_ignore=["loss"])

    def test_forward_outputs_answer_strings_and_metrics(self):
        self.model.eval()
        batch = Batch(self.instances)
        batch.index_instances(self.vocab)
        output = self.model(**batch.as_tensor_dict())
        assert len(output["best_span_str"]) == len(self.instances)
        for answer, instance in zip(output["best_span_str"], self.instances):
            assert answer in instance["metadata"]["context"]
        metrics = self.model.get_metrics(reset=True)
        assert set(metrics) == {"start_acc", "end_acc", "span_acc", "em", "f1"}
        assert self.model.get_metrics() == {}

    def test_training_mode_reports_loss_only(self):
        batch = Batch(self.instances)
        batch.index_instances(self.vocab)
        self.model.train()
        output = self.model(**batch.as_tensor_dict())
        assert "best_span_str" not in output and output["loss"].requires_grad
        assert self.model.get_metrics() == {}

    def test_overfits_tiny_data(self):
        torch.manual_seed(0)
        batch = Batch(self.instances)
        batch.index_instances(self.vocab)
        tensors = batch.as_tensor_dict()
        optimizer = torch.optim.Adam(self.model.parameters(), lr=0.02)
        self.model.eval()
        self.model(**tensors)
        before = self.model.get_metrics(reset=True)["f1"]
        for _ in range(60):
            self.model.train()
            optimizer.zero_grad()
            self.model(**tensors)["loss"].backward()
            optimizer.step()
        self.model.eval()
        self.model(**tensors)
        after = self.model.get_metrics(reset=True)["f1"]
        assert after > max(0.8, before + 0.3)

    def test_encoder_width_mismatch_is_a_clear_error(self):
        params = Params.from_file(self.param_file)
        params["model"]["span_head"]["input_dim"] = 12
        with pytest.raises(ValueError, match="context_encoder output size 10 != span_head input size 12"):
            Model.from_params(vocab=self.vocab, params=params["model"])
