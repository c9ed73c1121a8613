"""A released archive carries the config of each pretrained encoder folder its config names."""
import json

from srcframework.models.archived_encoders import archived_members, point_at_archived


def test_the_configs_of_local_encoder_folders_are_archived_and_loading_points_at_them(tmp_path):
    encoder = tmp_path / "encoder"
    encoder.mkdir()
    (encoder / "config.json").write_text('{"model_type": "speecht5"}')
    (tmp_path / "weights_only").mkdir()
    config = {"model": {
        "question_encoder": {"type": "speecht5", "model_name": "encoder", "freeze": True},
        "context_encoder": {"type": "bert", "model_name": "bert-base-uncased"},  # a hub name
        "others": [{"model_name": "weights_only"}, {"model_name": str(encoder)}],  # no config.json; absolute
    }}
    members = archived_members(config, root=str(tmp_path))
    assert members == {"fta/model.question_encoder/config.json": b'{"model_type": "speecht5"}',
                       "fta/model.others.1/config.json": b'{"model_type": "speecht5"}'}
    assert archived_members({"model": {"type": "span_qa"}}) == {}

    extracted = tmp_path / "extracted"
    for name, payload in members.items():
        (extracted / name).parent.mkdir(parents=True)
        (extracted / name).write_bytes(payload)
    loaded = point_at_archived(json.loads(json.dumps(config)), str(extracted))
    assert loaded["model"]["question_encoder"] == {"type": "speecht5", "freeze": True, "load_weights": False,
                                                   "model_name": str(extracted / "fta" / "model.question_encoder")}
    assert loaded["model"]["context_encoder"] == config["model"]["context_encoder"]
    assert loaded["model"]["others"][0] == {"model_name": "weights_only"}
    assert loaded["model"]["others"][1]["model_name"] == str(extracted / "fta" / "model.others.1")
    # an archive without them (every archive made before) loads as before
    assert point_at_archived(json.loads(json.dumps(config)), str(tmp_path / "plain")) == config
