"""Version hot-swap: a new EXPORT_DIR/N is loaded while the old version serves, then swapped in without dropping."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from dflow.serving import ModelServer
from tests.serving.models import call, linear, slow, wait_for


def _states(server, name):
    status, body = call(f"{server.url}/v1/models/{name}")
    assert status == 200, body
    return {s["version"]: s["state"] for s in body["model_version_status"]}


@pytest.mark.timeout(60)
def test_new_version_is_swapped_in_while_requests_in_flight_finish(tmp_path):
    slow(tmp_path / "m" / "1", 0.8)
    with ModelServer(str(tmp_path / "m"), "m", port=0, poll_seconds=0.1) as server:
        url = f"{server.url}/v1/models/m:predict"
        answers, stop = [], threading.Event()

        def keep_asking():  # requests all through the swap
            while not stop.is_set():
                answers.append(call(url, {"instances": [[1, 2, 3]]}))

        with ThreadPoolExecutor(2) as pool:
            in_flight = pool.submit(call, url, {"instances": [[1, 1, 1]]})
            time.sleep(0.2)
            slow(tmp_path / "m" / "2", 0.0, scale=2.0)
            wait_for(lambda: _states(server, "m").get("2") == "AVAILABLE")
            if not in_flight.done():  # the old version waits for its last request before it unloads
                assert _states(server, "m")["1"] == "UNLOADING"
            assert in_flight.result() == (200, {"predictions": [[1.0, 1.0, 1.0]]})
            asking = pool.submit(keep_asking)
            wait_for(lambda: _states(server, "m") == {"2": "AVAILABLE", "1": "END"})
            time.sleep(0.2)
            stop.set()
            asking.result()
        assert answers and all(status == 200 for status, _ in answers), answers[:3]
        assert {tuple(body["predictions"][0]) for _, body in answers} <= {(1.0, 2.0, 3.0), (2.0, 4.0, 6.0)}
        assert call(url, {"instances": [[1, 2, 3]]}) == (200, {"predictions": [[2.0, 4.0, 6.0]]})
        status, body = call(f"{server.url}/v1/models/m/versions/1:predict", {"instances": [[1, 2, 3]]})
        assert status == 404 and "Specific(m, 1)" in body["error"]
        assert server.predictors.keys() == {2}  # version 1's session is closed


@pytest.mark.timeout(60)
def test_a_version_that_fails_to_load_leaves_the_old_one_serving(tmp_path):
    import os
    import shutil

    linear(tmp_path / "m" / "1")
    with ModelServer(str(tmp_path / "m"), "m", port=0, poll_seconds=0.1) as server:
        linear(tmp_path / "staging", scale=2.0)
        index = next(p for p in (tmp_path / "staging" / "variables").iterdir() if p.name.endswith(".index"))
        os.remove(index)
        shutil.move(str(tmp_path / "staging"), str(tmp_path / "m" / "2"))
        status = wait_for(lambda: (lambda b: b["model_version_status"][0]["state"] == "END" and b)(
            call(f"{server.url}/v1/models/m")[1]))
        v2, v1 = status["model_version_status"]
        assert v2["version"] == "2" and "variables.index" in v2["status"]["error_message"]
        assert v1 == {"version": "1", "state": "AVAILABLE", "status": {"error_code": "OK", "error_message": ""}}
        assert call(f"{server.url}/v1/models/m:predict", {"inputs": [[1, 2, 3]], "output_filter": ["z"]}) == (
            200, {"outputs": [6.0]})
