"""Issue 12: the /dflow page and its JSON twins, against real LocalClusters."""

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

import dflow as tf

pytestmark = pytest.mark.cluster

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PS = "/job:ps/replica:0/task:0/device:CPU:0"
WORKER1 = "/job:worker/replica:0/task:1/device:CPU:0"


def http_base(client) -> str:
    """The scheduler's HTTP server (it serves /dflow even without Dask's Bokeh pages)."""
    host, port = client.run_on_scheduler(lambda dask_scheduler: (dask_scheduler.http_server.address,
                                                                 dask_scheduler.http_server.port))
    return f"http://{host}:{port}"


def get(url):
    """(status, body: parsed JSON or text) of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            status, body, kind = r.status, r.read().decode(), r.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        status, body, kind = e.code, e.read().decode(), e.headers.get("Content-Type", "")
    return status, (json.loads(body) if kind.startswith("application/json") else body)


def wait_for(fn, timeout=15.0):
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.2)


class Training:
    """A between-graph training step in a thread of this process, and a queue with an element
    in it and a consumer blocked on an empty one, while the test reads the page."""

    def __init__(self, target, prefix):
        self.graph = tf.Graph()
        with self.graph.as_default():
            with tf.device(tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:1")):
                self.w = tf.Variable([[1.0], [2.0]], name=f"{prefix}_w")
                self.x = tf.placeholder(tf.float32, [None, 2])
                loss = tf.reduce_mean(tf.square(tf.matmul(self.x, self.w) - 1.0))
                self.train = tf.train.GradientDescentOptimizer(0.01).minimize(loss, name=f"{prefix}_train")
                self.queue = tf.FIFOQueue(10, [tf.float32], shapes=[[2]], name=f"{prefix}_queue",
                                          shared_name=f"{prefix}_queue")
                self.enqueue = self.queue.enqueue([[1.0, 2.0]])
                self.empty = tf.FIFOQueue(5, [tf.float32], shapes=[[]], name=f"{prefix}_empty",
                                          shared_name=f"{prefix}_empty")
                self.dequeue = self.empty.dequeue()
                self.close_empty = self.empty.close()
        self.sess = tf.Session(target, graph=self.graph)
        self.sess.run(self.w.initializer)
        self.sess.run(self.enqueue)
        self.stop = threading.Event()
        self.steps = 0
        self.error = None
        self.threads = [threading.Thread(target=self._train, daemon=True),
                        threading.Thread(target=self._wait_on_empty, daemon=True)]
        for t in self.threads:
            t.start()

    def _train(self):
        try:
            while not self.stop.is_set():
                if self.steps == 5:  # one traced step feeds the page's slowest-ops table
                    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
                    self.sess.run(self.train, {self.x: [[1.0, 2.0]]}, options=options,
                                  run_metadata=tf.RunMetadata())
                else:
                    self.sess.run(self.train, {self.x: [[1.0, 2.0]]})
                self.steps += 1
        except tf.errors.OpError as e:  # the worker test kills a worker
            self.error = e

    def _wait_on_empty(self):
        try:
            self.sess.run(self.dequeue)
        except (tf.errors.OutOfRangeError, tf.errors.UnavailableError):
            pass  # closed at the end, or its worker was killed

    def close(self):
        self.stop.set()
        self.sess.run(self.close_empty)
        for t in self.threads:
            t.join(30)
        self.sess.close()


def test_the_page_and_its_json_name_the_users_ops_devices_variables_and_queue(local_cluster, cluster_client):
    base = http_base(cluster_client)
    training = Training(local_cluster.target, "page")
    try:
        def session():
            rows = get(base + "/dflow/json/sessions")[1]["sessions"]
            return next((s for s in rows if s["pid"] == os.getpid() and s["runs"] >= 20 and s["active"]
                         and s["graph_ops"] > 0), None)

        mine = wait_for(session)
        assert mine is not None, get(base + "/dflow/json/sessions")
        assert mine["host"] == socket.gethostname() and mine["steps_per_s"] > 0 and mine["errors"] == 0
        assert mine["partitions"] >= 2 and mine["cut_edges"] >= 1  # the ps and worker:1 exchange tensors

        status, page = get(base + "/dflow")
        assert status == 200 and '<table id="sessions">' in page and "/json/" in page

        status, detail = get(f"{base}/dflow/json/session/{mine['id']}")
        assert status == 200 and detail["history"] and detail["history"][-1]["steps_per_s"] > 0
        assert detail["step_times"] and all(s["seconds"] > 0 for s in detail["step_times"])
        trace = detail["trace"]  # the traced step's ops, slowest first
        assert trace["ops_traced"] >= mine["graph_ops"] - 2 and trace["span_ms"] > 0
        slowest = {o["name"]: o for o in trace["slowest"]}
        assert slowest["gradients/MatMul_grad/MatMul_1"]["device"] == WORKER1
        assert [o["ms"] for o in trace["slowest"]] == sorted((o["ms"] for o in trace["slowest"]), reverse=True)

        status, placement = get(base + "/dflow/json/placement")
        rows = {r["device"]: r for r in placement["devices"]}
        workers = local_cluster.worker_addresses
        assert rows[PS]["worker"] == workers["/job:ps/task:0"] and rows[PS]["alive"]
        assert rows[WORKER1]["worker"] == workers["/job:worker/task:1"] and rows[WORKER1]["host"] == "127.0.0.1"
        assert rows[PS]["ops"] > 0 and rows[WORKER1]["ops"] > 0 and rows[WORKER1]["partitions"] >= 1
        assert rows[PS]["memory"] > 0 and rows[PS]["memory_limit"] > 0

        status, variables = get(base + "/dflow/json/variables")
        (w,) = [v for v in variables["variables"] if v["name"] == "page_w"]
        assert (w["dtype"], w["shape"], w["device"], w["bytes"]) == ("float32", [2, 1], PS, 8)
        assert w["initialized"] and w["updates"] >= 2 and time.time() - w["updated"] < 30
        status, one = get(base + "/dflow/json/variables/page_w")
        assert status == 200 and [v["name"] for v in one["variables"]] == ["page_w"]

        def queues():
            rows = {q["name"]: q for q in get(base + "/dflow/json/queues")[1]["queues"]}
            return rows if rows.get("page_empty", {}).get("blocked_consumers") == 1 else None

        rows = wait_for(queues)
        assert rows is not None, get(base + "/dflow/json/queues")
        q = rows["page_queue"]
        assert (q["kind"], q["size"], q["capacity"], q["closed"], q["device"]) == ("FIFOQueue", 1, 10, False, WORKER1)

        before = training.steps  # page requests never wait for runs, nor runs for them
        for _ in range(5):
            for path in ("variables", "queues", "placement", "sessions"):
                assert get(f"{base}/dflow/json/{path}")[0] == 200
        assert wait_for(lambda: training.steps > before + 5)

        status, graph = get(f"{base}/dflow/json/graph?session={mine['id']}&search=matmul_GRAD")
        assert status == 200 and graph["session"] == mine["id"] and graph["ops"] > graph["matched"] > 0
        assert all("matmul_grad" in n["name"].lower() for n in graph["nodes"])
        assert {n["name"] for n in graph["nodes"]} >= {"gradients/MatMul_grad/MatMul_1"}
        assert {PS, WORKER1} <= set(graph["devices"])
        status, whole = get(f"{base}/dflow/json/graph?session={mine['id']}")
        names = {n["name"]: n["device"] for n in whole["nodes"]}
        assert names["page_train"] == PS and names["gradients/MatMul_grad/MatMul_1"] == WORKER1
        cut = [e for e in whole["edges"] if e["cut"]]
        assert cut and all(names[e["from"]] != names[e["to"]] for e in cut)
        assert len(cut) == whole["cut_edges"]
    finally:
        training.close()
    rows = get(base + "/dflow/json/queues")[1]["queues"]
    assert next(q for q in rows if q["name"] == "page_empty")["closed"]
    closed = get(f"{base}/dflow/json/session/{mine['id']}")[1]
    assert closed["closed"] and closed["runs"] >= training.steps  # the last report, sent at close


def test_unknown_sessions_variables_and_endpoints_are_404s_with_a_message(cluster_client):
    base = http_base(cluster_client)
    for path, words in [("session/nosuchsession", "nosuchsession"), ("graph?session=nosuchsession", "nosuchsession"),
                        ("variables/no_such_variable", "no_such_variable"), ("nosuchtable", "nosuchtable")]:
        status, body = get(f"{base}/dflow/json/{path}")
        assert status == 404 and words in body["error"], (path, status, body)
    status, body = get(f"{base}/dflow/json/graph?limit=many")
    assert status == 400 and "limit" in body["error"]


@pytest.mark.slow
def test_a_worker_killed_mid_run_is_shown_lost():
    import psutil

    with tf.LocalCluster(ps=1, workers=2, dashboard_address=None) as cluster, cluster.client() as client:
        base = http_base(client)
        training = Training(cluster.target, "lost")
        try:
            assert wait_for(lambda: training.steps > 10)
            victim = cluster.worker_addresses["/job:worker/task:1"]
            pid = client.run(os.getpid, workers=[victim])[victim]
            psutil.Process(pid).kill()
            training.threads[0].join(30)
            assert isinstance(training.error, tf.errors.UnavailableError)

            def lost():
                rows = get(base + "/dflow/json/placement")[1]["devices"]
                return [r for r in rows if r["worker"] == victim and not r["alive"]]

            rows = wait_for(lost, 30)
            assert rows and rows[0]["device"] == WORKER1 and rows[0]["lost_at"] <= time.time()
            rows = get(base + "/dflow/json/sessions")[1]["sessions"]
            mine = next(s for s in rows if s["pid"] == os.getpid())
            assert wait_for(lambda: get(f"{base}/dflow/json/session/{mine['id']}")[1]["errors"] >= 1)
            error = get(f"{base}/dflow/json/session/{mine['id']}")[1]["last_error"]
            # (it names the device, or only the address when another thread of the session saw the loss first)
            assert "UnavailableError" in error and ("task:1" in error or victim in error)
        finally:
            training.stop.set()
            try:
                training.sess.run(training.close_empty)
            except tf.errors.OpError:
                pass  # its worker is gone
            training.sess.close()


@pytest.mark.slow
def test_dflow_cluster_prints_the_page_link_and_serves_it():
    p = subprocess.Popen([sys.executable, "-m", "dflow.cli", "cluster", "--ps", "1", "--workers", "1",
                          "--dashboard-address", ":0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, cwd=ROOT, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    try:
        link = None
        deadline = time.monotonic() + 90
        for line in p.stdout:
            if line.strip().startswith("dflow:"):
                link = line.split()[1]
                break
            assert time.monotonic() < deadline
        assert link is not None and link.startswith("http://") and link.endswith("/dflow")
        status, page = get(link)
        assert status == 200 and "dflow" in page
        status, body = get(link + "/json/placement")
        assert status == 200 and {r["device"] for r in body["devices"]} >= {PS}
        try:
            import bokeh  # noqa: F401 - Dask's own pages need it
        except ImportError:
            return
        status, html = get(link.replace("/dflow", "/status"))
        assert status == 200 and 'href="dflow"' in html  # the link in Dask's navigation bar
    finally:
        p.terminate()
        p.wait(30)


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.browser
@pytest.mark.skipif(chromium() is None, reason="needs Debian's chromium package (headless Chromium)")
def test_the_page_renders_in_headless_chromium_without_javascript_errors(local_cluster, cluster_client, tmp_path):
    base = http_base(cluster_client)
    training = Training(local_cluster.target, "browser")
    try:
        assert wait_for(lambda: training.steps > 200, 30)
        shot = str(tmp_path / "dflow-dashboard.png")
        common = [chromium(), "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
                  f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
                  "--virtual-time-budget=5000"]
        dom = subprocess.run(common + ["--dump-dom", base + "/dflow"], capture_output=True, text=True, timeout=120)
        shot_run = subprocess.run(common + ["--window-size=1400,2000", f"--screenshot={shot}", base + "/dflow"],
                                  capture_output=True, text=True, timeout=120)
    finally:
        training.close()
    assert dom.returncode == 0, dom.stderr[-3000:]
    html = dom.stdout
    # the tables and plots were filled by the page's script from the JSON
    assert "browser_w" in html and "browser_queue" in html and PS in html and "running" in html
    assert "<polyline" in html and "gradients/MatMul_grad/MatMul_1" in html and "updated " in html
    assert "ops in " in html  # the traced step's table
    errors = [line for line in (dom.stderr + shot_run.stderr).splitlines()
              if "Uncaught" in line or ("CONSOLE" in line and "error" in line.lower())]
    assert not errors, errors
    assert shot_run.returncode == 0 and os.path.getsize(shot) > 10_000, shot_run.stderr[-3000:]
    # docs/monitoring.md's screenshot: taken here when missing or with DFLOW_UPDATE_SCREENSHOTS=1
    docs_shot = os.path.join(ROOT, "docs", "images", "dflow-dashboard.png")
    if os.environ.get("DFLOW_UPDATE_SCREENSHOTS") == "1" or not os.path.exists(docs_shot):
        os.makedirs(os.path.dirname(docs_shot), exist_ok=True)
        shutil.copyfile(shot, docs_shot)


@pytest.mark.slow
def test_any_dask_scheduler_serves_the_page_with_the_preload_flag(tmp_path):
    from distributed import Client

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env, "cwd": ROOT}
    scheduler_file = str(tmp_path / "scheduler.json")
    procs = [subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--dashboard-address", ":0", "--preload", "dflow.dashboard",
                               "--scheduler-file", scheduler_file], **quiet)]
    try:
        assert wait_for(lambda: os.path.exists(scheduler_file), 60)
        procs.append(subprocess.Popen([sys.executable, "-m", "dask", "worker", "--scheduler-file", scheduler_file,
                                       "--nthreads", "1", "--no-dashboard"], **quiet))
        with open(scheduler_file) as f:
            target = json.load(f)["address"]
        with Client(target, timeout=30) as client:
            client.wait_for_workers(1, timeout=60)
            base = http_base(client)
            with tf.Graph().as_default():
                v = tf.Variable(3.0, name="preloaded_v")
                with tf.Session(target) as sess:
                    sess.run(v.initializer)
                    sess.run(v.assign_add(1.0))
            status, body = get(base + "/dflow/json/variables/preloaded_v")
            assert status == 200 and body["variables"][0]["updates"] == 2
            # one plain worker serves ps:0 and worker:0: the variable is on the default device
            assert body["variables"][0]["device"] == "/job:worker/replica:0/task:0/device:CPU:0"
            sessions = get(base + "/dflow/json/sessions")[1]["sessions"]
            assert [s["runs"] for s in sessions] == [2] and sessions[0]["closed"]
            assert get(base + "/dflow")[0] == 200
    finally:
        for p in procs[::-1]:
            p.terminate()
        for p in procs:
            p.wait(30)


async def _bokeh_tables(dask_scheduler=None):
    """Builds /dflow-live's document on the scheduler's loop, refreshes it once the workers'
    snapshot is in, and returns its tables' data."""
    import asyncio

    from bokeh.document import Document
    from bokeh.models import DataTable

    from dflow.dashboard.bokeh_app import dflow_doc

    doc = Document()
    dflow_doc(dask_scheduler, {}, doc)
    await asyncio.sleep(1.5)  # the first refresh asked the workers for their variables
    for callback in doc.session_callbacks:
        callback.callback()
    return {m.name: {k: list(v) for k, v in m.source.data.items()} for m in doc.select({"type": DataTable})}


@pytest.mark.slow
def test_the_bokeh_page_shows_sessions_placement_and_variables(tmp_path):
    pytest.importorskip("bokeh")
    with tf.LocalCluster(ps=1, workers=1, dashboard_address=":0") as cluster, cluster.client() as client:
        base = cluster.dashboard_link.rsplit("/", 1)[0]
        with tf.Graph().as_default():
            with tf.device("/job:ps/task:0"):
                v = tf.Variable([1.0, 2.0], name="bokeh_live_v")
            with tf.Session(cluster.target) as sess:
                sess.run(v.initializer)
                bump = v.assign_add([1.0, 1.0])
                for _ in range(30):
                    sess.run(bump)
                time.sleep(1.2)  # the session's report (at most once a second)
                sess.run(bump)
                tables = client.run_on_scheduler(_bokeh_tables)
                status, html = get(base + "/dflow-live")
                browser = None
                if chromium() is not None:
                    browser = subprocess.run(
                        [chromium(), "--headless", "--disable-gpu", "--no-sandbox", "--window-size=1200,900",
                         f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
                         "--virtual-time-budget=5000", f"--screenshot={tmp_path / 'live.png'}", base + "/dflow-live"],
                        capture_output=True, text=True, timeout=120)
    assert status == 200 and "bokeh" in html.lower()
    assert tables["dflow-sessions"]["runs"] and tables["dflow-sessions"]["state"][0] == "running"
    assert "/job:ps/replica:0/task:0/device:CPU:0" in tables["dflow-placement"]["device"]
    variables = tables["dflow-variables"]
    row = variables["name"].index("bokeh_live_v")
    assert variables["updates"][row] >= 31 and variables["shape"][row] == "[2]"
    if browser is not None:  # the page's scripts load and run without errors in a real browser
        errors = [line for line in browser.stderr.splitlines()
                  if "Uncaught" in line or ("CONSOLE" in line and "error" in line.lower())]
        assert browser.returncode == 0 and not errors, browser.stderr[-3000:]
