"""Released models fetched by name: `allennlp models install ID` and `load_predictor(ID)` on a miss
fetch the card's `download` from `$SRCFRAMEWORK_MODELS_URL`, check its sha256 and keep it in the
models folder; a wrong checksum, a connection that breaks mid-file or a refused one is one line and
leaves nothing in the models folder. The server is a loopback HTTP server started here, serving the
clone's models/ (or a damaged copy of it); no other network."""
import contextlib
import http.server
import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from srcframework import pretrained
from srcframework.common.files import file_sha256
from srcframework.store import download
from tests.conftest import ROOT, run_allennlp

MODELS = ROOT / "models"
CARDS = ROOT / "srcframework" / "modelcards"
MODEL = "bidaf-quickstart"
CONTEXT = "Jastemora is a town in the Algaren Valley that was founded in 1211 by Tannine Osklirard."


class Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the server's folder; with `broken`, sends a file's headers and half its bytes, then
    closes the connection."""

    def log_message(self, *args) -> None:  # the test's output stays quiet
        pass

    def do_GET(self) -> None:
        self.server.requests.append(self.path)
        if not self.server.broken:
            return super().do_GET()
        payload = Path(self.directory, self.path.lstrip("/")).read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload[: len(payload) // 2])
        self.wfile.flush()
        self.close_connection = True


@contextlib.contextmanager
def serving(folder: Path, broken: bool = False):
    """An HTTP server of `folder` on 127.0.0.1 (a free port), in a thread, for the `with` block;
    `$SRCFRAMEWORK_MODELS_URL` names it meanwhile. Yields the list of paths requested."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), lambda *args: Handler(*args, directory=str(folder)))
    server.daemon_threads, server.requests, server.broken = True, [], broken
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    saved = os.environ.get(download.MODELS_URL_ENV)
    os.environ[download.MODELS_URL_ENV] = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        yield server.requests
    finally:
        if saved is None:
            os.environ.pop(download.MODELS_URL_ENV, None)
        else:
            os.environ[download.MODELS_URL_ENV] = saved
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture
def outside(tmp_path, monkeypatch):
    """The package's cards in a folder with no models/ beside them: a released id is then neither
    in a clone nor in the (empty) models folder, as in a pip-installed package."""
    cards = tmp_path / "site" / "modelcards"
    shutil.copytree(CARDS, cards)
    monkeypatch.setenv(pretrained.CARDS_ENV, str(cards))
    return Path(os.environ["SRCFRAMEWORK_MODELS"])


@pytest.fixture
def elsewhere(tmp_path):
    """A working folder outside the clone, as a pip-installed package's user runs commands from:
    no runs/ there, so `models install` finds no recipe output of the card (a clone's own
    runs/quickstart, where the quickstart recipe ran, would otherwise be installed instead)."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    return folder


def test_every_released_card_names_its_download():
    for model_id, card in pretrained.model_cards().items():
        usage = card.model_usage
        if pretrained.is_released(card):
            assert usage.download == os.path.basename(usage.archive_file) and usage.sha256, model_id


def test_models_install_fetches_checks_and_keeps_it_once(outside, elsewhere):
    with serving(MODELS) as requests:
        listing = run_allennlp("models", "list", "--json", cwd=elsewhere)
        row = next(row for row in json.loads(listing.stdout) if row["id"] == MODEL)
        assert (row["archive"], row["where"]) == ("to fetch", f"{download.models_url()}{MODEL}.tar.gz")
        done = run_allennlp("models", "install", MODEL, cwd=elsewhere)
        assert done.returncode == 0, done.stderr[-2000:]
        target = outside / f"{MODEL}.tar.gz"
        assert done.stdout.strip().splitlines()[-1] == str(target)
        assert file_sha256(str(target)) == file_sha256(str(MODELS / f"{MODEL}.tar.gz"))
        again = run_allennlp("models", "install", MODEL, cwd=elsewhere)
        assert again.returncode == 0  # already there: not fetched again
        assert pretrained.archive_path(MODEL) == str(target)
    assert requests == [f"/{MODEL}.tar.gz"]
    assert os.listdir(outside) == [f"{MODEL}.tar.gz"]


def test_load_predictor_fetches_on_a_miss_and_answers(outside):
    with serving(MODELS) as requests:
        predictor = pretrained.load_predictor(MODEL)
    answer = predictor.predict_json({"passage": CONTEXT, "question": "Who founded Jastemora?"})
    assert answer["best_span_str"] in CONTEXT
    assert requests == [f"/{MODEL}.tar.gz"] and os.listdir(outside) == [f"{MODEL}.tar.gz"]


def test_a_wrong_checksum_is_one_line_and_keeps_nothing(outside, tmp_path, elsewhere):
    served = tmp_path / "served"
    served.mkdir()
    shutil.copyfile(MODELS / "bidaf-clean.tar.gz", served / f"{MODEL}.tar.gz")  # another archive under its name
    with serving(served):
        url = download.models_url()
        done = run_allennlp("models", "install", MODEL, cwd=elsewhere)
        with pytest.raises(pretrained.ModelArchiveNotFound) as error:
            pretrained.load_predictor(MODEL)
    assert done.returncode == 1
    line = done.stderr.strip().splitlines()[-1]
    assert line == f"error: {url}{MODEL}.tar.gz has 10,982,862 bytes, not the 2,553,103 its card records; nothing was kept"
    assert "fetching it by name failed" in str(error.value) and "\n" not in str(error.value)
    assert not outside.exists() or os.listdir(outside) == []


def test_a_checksum_that_differs_at_the_same_size_is_refused(outside, tmp_path, elsewhere):
    served = tmp_path / "served"
    served.mkdir()
    payload = bytearray((MODELS / f"{MODEL}.tar.gz").read_bytes())
    payload[-20] ^= 0xFF
    (served / f"{MODEL}.tar.gz").write_bytes(bytes(payload))
    with serving(served):
        done = run_allennlp("models", "install", MODEL, cwd=elsewhere)
    assert done.returncode == 1
    assert "does not have the sha256 its card records (" in done.stderr.strip().splitlines()[-1]
    assert not outside.exists() or os.listdir(outside) == []


def test_a_connection_broken_mid_file_is_one_line_and_keeps_nothing(outside, elsewhere):
    with serving(MODELS, broken=True):
        url = download.models_url()
        done = run_allennlp("models", "install", MODEL, cwd=elsewhere)
    assert done.returncode == 1
    size = (MODELS / f"{MODEL}.tar.gz").stat().st_size
    line = done.stderr.strip().splitlines()[-1]
    assert line == (f"error: cannot fetch {url}{MODEL}.tar.gz: the connection closed after {size // 2:,} of {size:,} "
                    "bytes; nothing was kept")
    assert not outside.exists() or os.listdir(outside) == []


def test_a_refused_connection_says_what_to_do(outside):
    # the suite's own $SRCFRAMEWORK_MODELS_URL: the loopback's discard port, where nothing listens
    with pytest.raises(pretrained.ModelArchiveNotFound) as error:
        pretrained.load_predictor(MODEL)
    message = str(error.value)
    assert f"is released in the srcframework repository as models/{MODEL}.tar.gz, which is not beside" in message
    assert f"fetching it by name failed (cannot fetch http://127.0.0.1:9/{MODEL}.tar.gz: " in message
    assert "$SRCFRAMEWORK_MODELS_URL names the server" in message
    assert not outside.exists() or os.listdir(outside) == []


def test_the_url_base_is_the_variable_or_the_default(monkeypatch):
    monkeypatch.setenv(download.MODELS_URL_ENV, "http://127.0.0.1:8000/models")
    assert download.download_url("x.tar.gz") == "http://127.0.0.1:8000/models/x.tar.gz"
    assert download.download_url("https://example.org/y.tar.gz") == "https://example.org/y.tar.gz"
    monkeypatch.setenv(download.MODELS_URL_ENV, "")
    assert download.models_url() == download.DEFAULT_MODELS_URL


def test_in_a_clone_models_install_copies_its_release_without_a_fetch():
    # the suite's $SRCFRAMEWORK_MODELS_URL refuses every connection: a fetch would fail
    done = run_allennlp("models", "install", MODEL)
    assert done.returncode == 0, done.stderr[-2000:]
    target = Path(os.environ["SRCFRAMEWORK_MODELS"]) / f"{MODEL}.tar.gz"
    assert done.stdout.strip().splitlines()[-1] == str(target)
    assert file_sha256(str(target)) == pretrained.model_card(MODEL).model_usage.sha256
