"""Request batching (concurrent :predict requests joined into one run) and per-request deadlines (504)."""

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from dflow.serving import BatchingParameters, ModelServer
from tests.serving.models import call, linear, linear_y, slow


@pytest.mark.timeout(60)
def test_concurrent_requests_are_joined_into_batches_with_the_unbatched_answers(tmp_path):
    linear(tmp_path / "lin" / "1")
    rng = np.random.RandomState(1)
    requests = [rng.uniform(-2, 2, size=(1 + i % 3, 3)).astype(np.float32) for i in range(12)]
    batching = BatchingParameters(max_batch_size=64, batch_timeout_micros=300_000, num_batch_threads=1)
    with ModelServer(str(tmp_path / "lin"), "lin", port=0, batching=batching) as server:
        predictor = server.predictors[1]

        def ask(i):
            rows = requests[i].tolist()
            if i % 2:  # the row format, both outputs: a batch of its own key
                return call(f"{server.url}/v1/models/lin:predict", {"instances": rows})
            return call(f"{server.url}/v1/models/lin:predict", {"inputs": {"x": rows}, "output_filter": ["y"]})

        with ThreadPoolExecutor(len(requests)) as pool:
            answers = list(pool.map(ask, range(len(requests))))
        runs = predictor.runs
        assert all(status == 200 for status, _ in answers), answers
        for i, (_, out) in enumerate(answers):
            want = linear_y(requests[i])
            got = [p["y"] for p in out["predictions"]] if i % 2 else out["outputs"]
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
            if i % 2:
                np.testing.assert_allclose([p["z"] for p in out["predictions"]], requests[i].sum(1), rtol=1e-5)
        assert runs < len(requests) / 2, f"{runs} Session.runs for {len(requests)} concurrent requests"
        assert server.batcher.batches == runs
        # alone, a request is answered after the batch timeout at most, by a run of its own
        status, out = call(f"{server.url}/v1/models/lin:predict", {"instances": requests[0].tolist()})
        assert status == 200 and predictor.runs == runs + 1


def test_batching_parameters_are_checked():
    with pytest.raises(ValueError, match="--max-batch-size must be an integer >= 1, got 0"):
        BatchingParameters(max_batch_size=0)
    with pytest.raises(ValueError, match="--batch-timeout-micros"):
        BatchingParameters(max_batch_size=8, batch_timeout_micros=-1)


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory):
    root = tmp_path_factory.mktemp("slow")
    slow(root / "1", 0.6)
    with ModelServer(str(root), "slow", port=0, threads=1, request_timeout_ms=2000) as server:
        yield server


@pytest.mark.timeout(30)
@pytest.mark.parametrize("header", [{"X-Request-Deadline-Ms": "150"}, {"grpc-timeout": "150m"}])
def test_a_request_past_its_deadline_gets_504_not_a_hang(slow_server, header):
    url = f"{slow_server.url}/v1/models/slow:predict"
    with ThreadPoolExecutor(1) as pool:
        busy = pool.submit(call, url, {"instances": [[1, 2, 3]]})  # holds the server's only run thread
        time.sleep(0.1)
        t0 = time.monotonic()
        status, body = call(url, {"instances": [[4, 5, 6]]}, headers=header)
        elapsed = time.monotonic() - t0
        assert busy.result() == (200, {"predictions": [[1.0, 2.0, 3.0]]})
    assert status == 504 and body["error"].startswith("DEADLINE_EXCEEDED"), body
    assert elapsed < 0.5
    assert call(url, {"instances": [[4, 5, 6]]}) == (200, {"predictions": [[4.0, 5.0, 6.0]]})  # still serving


@pytest.mark.timeout(30)
def test_server_wide_timeout_and_bad_deadline_headers(slow_server, tmp_path):
    url = f"{slow_server.url}/v1/models/slow:predict"
    status, body = call(url, {"instances": [[1, 2, 3]]}, headers={"X-Request-Deadline-Ms": "abc"})
    assert status == 400 and "header X-Request-Deadline-Ms" in body["error"]
    status, body = call(url, {"instances": [[1, 2, 3]]}, headers={"grpc-timeout": "10x"})
    assert status == 400 and "header grpc-timeout" in body["error"]
    slow(tmp_path / "s" / "1", 1.0)
    with ModelServer(str(tmp_path / "s"), "s", port=0, request_timeout_ms=200) as server:
        t0 = time.monotonic()
        status, body = call(f"{server.url}/v1/models/s:predict", {"instances": [[1, 2, 3]]})
        assert status == 504 and "DEADLINE_EXCEEDED" in body["error"] and time.monotonic() - t0 < 0.8


@pytest.mark.timeout(30)
def test_a_deadline_passing_while_waiting_in_a_batch_gets_504(tmp_path):
    linear(tmp_path / "lin" / "1")
    batching = BatchingParameters(max_batch_size=8, batch_timeout_micros=1_500_000, num_batch_threads=1)
    with ModelServer(str(tmp_path / "lin"), "lin", port=0, batching=batching) as server:
        t0 = time.monotonic()
        status, body = call(f"{server.url}/v1/models/lin:predict", {"instances": [[1, 2, 3]]},
                            headers={"X-Request-Deadline-Ms": "100"})
        assert status == 504 and "DEADLINE_EXCEEDED" in body["error"] and time.monotonic() - t0 < 1.0
        time.sleep(1.6)  # its batch came due: the request had gone, so nothing ran
        assert server.predictors[1].runs == 0 and server.batcher.batches == 0


def _save(export_dir, shape, build):
    """simple_save of y = build(x) for a float32 placeholder x of ``shape``."""
    import dflow as tf

    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, shape, name="x")
        tf.saved_model.simple_save(sess, str(export_dir), {"x": x}, {"y": tf.identity(build(tf, x), name="y")})


def _concurrently(url, bodies):
    with ThreadPoolExecutor(len(bodies)) as pool:
        return list(pool.map(lambda body: call(url, body), bodies))


_SLOW_BATCHES = BatchingParameters(max_batch_size=64, batch_timeout_micros=300_000, num_batch_threads=1)


@pytest.mark.timeout(60)
def test_one_bad_value_in_a_batch_fails_only_its_own_request(tmp_path):
    def checked_sqrt(tf, x):
        with tf.control_dependencies([tf.debugging.assert_non_negative(x, message="x must be >= 0")]):
            return tf.sqrt(x)

    _save(tmp_path / "m" / "1", [None, 3], checked_sqrt)
    with ModelServer(str(tmp_path / "m"), "m", port=0, batching=_SLOW_BATCHES) as server:
        rows = [[i, 4.0, 9.0] for i in range(5)] + [[-1.0, 4.0, 9.0]]
        answers = _concurrently(f"{server.url}/v1/models/m:predict", [{"instances": [r]} for r in rows])
        assert server.batcher.batches < len(rows)
        for row, (status, body) in zip(rows[:-1], answers):
            assert status == 200 and np.allclose(body["predictions"][0], np.sqrt(row)), body
        status, body = answers[-1]
        assert status == 400 and "x must be >= 0" in body["error"]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("shape, build, batched", [
    ([2, 3], lambda tf, x: 2.0 * x, False),  # no batch dimension: each request runs alone
    ([None, 3], lambda tf, x: tf.reduce_sum(x), True),  # the output loses it: joined, then each rerun alone
])
def test_requests_a_batch_cannot_split_run_alone(tmp_path, shape, build, batched):
    _save(tmp_path / "m" / "1", shape, build)
    with ModelServer(str(tmp_path / "m"), "m", port=0, batching=_SLOW_BATCHES) as server:
        inputs = [np.full((2, 3), i, np.float32) for i in range(4)]
        answers = _concurrently(f"{server.url}/v1/models/m:predict", [{"inputs": x.tolist()} for x in inputs])
        want = [2.0 * x if shape[0] == 2 else x.sum() for x in inputs]
        for (status, body), y in zip(answers, want):
            assert status == 200 and np.allclose(body["outputs"], y), body
        assert (server.batcher.batches > 0) == batched
        assert server.predictors[1].runs == len(inputs) + (server.batcher.batches if batched else 0)
