"""The Dask backend: real schedulers and workers on 127.0.0.1, the same files as a local run, and its faults."""
from __future__ import annotations

import contextlib
import copy
import gc
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import tomli_w

distributed = pytest.importorskip("distributed")

import ga.cli.progress  # noqa: E402
import ga.cli.run  # noqa: E402
import ga.games.executor  # noqa: E402
import ga.games.cluster  # noqa: E402
from ga.cli import main  # noqa: E402
from ga.config import config_from_dict, load_config  # noqa: E402
from ga.evolution.run import evolve  # noqa: E402
from ga.rundir.checkpoint import read_checkpoint  # noqa: E402
from runs import assert_same_run, with_changes



def experiment(**sections: dict[str, Any]) -> dict[str, Any]:
    """Returns a small experiment whose whole state is in the checkpoint (elites, coevolution, hall of fame)."""
    return with_changes({
        "experiment": {"name": "dask", "seed": 7, "generations": 4},
        "population": {"size": 12, "parents": 6},
        "selection": {"method": "tournament", "tournament_size": 2, "elitism": 1},
        "fitness": {"opponents": ["random", "nhand:1", "nmost:1"], "draw": "one", "games_per_opponent": 4,
                    "colours": "both", "coevolution": 1, "hall_of_fame_games": 1, "hall_of_fame_size": 3,
                    "random_table_games": 2},
        "compute": {"workers": 1},
        # A checkpoint every generation, however short: these tests kill and stop runs between generations.
        "output": {"checkpoint_seconds": 0.0},
    }, **sections)






def snapshot(run_dir: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(run_dir.iterdir()) if path.is_file()}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def config_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("config") / "dask.toml"
    path.write_text(tomli_w.dumps(experiment()), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The local run every cluster run must reproduce."""
    run_dir = tmp_path_factory.mktemp("reference") / "run"
    evolve(config_from_dict(experiment()), out=run_dir)
    return run_dir


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """Two single-threaded worker processes (with nannies, which restart a killed worker)."""
    local = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                     dashboard_address=None, silence_logs=50,
                                     scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
    yield local
    local.close()


@pytest.fixture
def short_timeouts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ga.games.cluster, "CONNECT_TIMEOUT_S", 2.0)


# --- the same results --------------------------------------------------------------------------


def test_a_run_on_a_dask_cluster_writes_the_files_of_a_local_run(cluster: Any, reference: Path,
                                                                  tmp_path: Path) -> None:
    result = evolve(config_from_dict(experiment()), out=tmp_path / "run", dask=cluster.scheduler_address)
    assert result.finished
    assert_same_run(reference, tmp_path / "run")
    saved = load_config(tmp_path / "run" / "config.toml").compute
    assert (saved.backend, saved.address) == ("dask", cluster.scheduler_address)


def test_a_network_run_on_a_dask_cluster_writes_the_files_of_a_local_run(cluster: Any, tmp_path: Path) -> None:
    """The rows carry their networks to the workers (the layout pickled by its shape, made again there)."""
    network = experiment(patterns={"sets": ["all-2"]}, crossover={"method": "tuples"}, td={"games": 2},
                         fitness={"eps": 0.1, "opponents": ["random", "nhand:1"]})
    local = evolve(config_from_dict(network), out=tmp_path / "local")
    remote = evolve(config_from_dict(network), out=tmp_path / "remote", dask=cluster.scheduler_address)
    assert remote.finished
    assert_same_run(tmp_path / "local", tmp_path / "remote")
    assert (tmp_path / "remote" / "best_evaluation.json").read_bytes() == (
        tmp_path / "local" / "best_evaluation.json").read_bytes()
    assert local.generations_done == 4


def _counting_tasks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    tasks: list[int] = []
    real_map = ga.games.cluster.cluster_map

    def counting_map(client: Any) -> Any:
        run_on_cluster = real_map(client)

        def counted(function: Any, items: Any) -> Any:
            items = list(items)
            tasks.append(len(items))
            return run_on_cluster(function, items)

        return counted

    monkeypatch.setattr(ga.games.cluster, "cluster_map", counting_map)
    return tasks


def test_the_games_really_go_to_the_cluster(cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tasks = _counting_tasks(monkeypatch)
    evolve(config_from_dict(experiment()), out=tmp_path / "run", dask=cluster.scheduler_address, generations=2)
    # One batch per worker thread (2 workers x DASK_BATCHES_PER_WORKER), of similar cost, cut at individuals.
    assert tasks == [2 * ga.games.executor.DASK_BATCHES_PER_WORKER] * 2


@pytest.mark.shows("compute.backend", "compute.address", "evolve --dask", "resume --dask")
def test_the_config_and_the_options_send_the_games_to_the_cluster_they_name(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks = _counting_tasks(monkeypatch)
    address = cluster.scheduler_address
    config = tmp_path / "dask.toml"
    config.write_text(tomli_w.dumps(experiment(compute={"backend": "dask", "address": address})), encoding="utf-8")
    assert main(["evolve", str(config), "--generations", "2", "--out", str(tmp_path / "a"), "--quiet",
                 "--no-plots"]) == 0
    assert tasks == [2 * ga.games.executor.DASK_BATCHES_PER_WORKER] * 2  # both generations, on its 2 workers
    tasks.clear()
    local = tmp_path / "local.toml"
    local.write_text(tomli_w.dumps(experiment()), encoding="utf-8")
    assert main(["evolve", str(local), "--generations", "2", "--out", str(tmp_path / "b"), "--quiet",
                 "--no-plots"]) == 0
    assert tasks == []  # backend local: no task goes out
    assert main(["resume", str(tmp_path / "b"), "--generations", "3", "--dask", address, "--quiet",
                 "--no-plots"]) == 0
    assert tasks == [2 * ga.games.executor.DASK_BATCHES_PER_WORKER]
    tasks.clear()
    assert main(["evolve", str(local), "--generations", "1", "--dask", address, "--out", str(tmp_path / "c"),
                 "--quiet", "--no-plots"]) == 0
    assert len(tasks) == 1


def test_the_cli_runs_on_an_in_process_cluster(config_file: Path, reference: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["evolve", str(config_file), "--dask", "local:2", "--out", str(out), "--quiet", "--no-plots"]) == 0
    assert_same_run(reference, out)


def test_a_config_can_ask_for_dask(reference: Path, tmp_path: Path) -> None:
    path = tmp_path / "dask.toml"
    path.write_text(tomli_w.dumps(experiment(compute={"backend": "dask", "address": "local:1"})), encoding="utf-8")
    assert main(["evolve", str(path), "--out", str(tmp_path / "run"), "--quiet", "--no-plots"]) == 0
    assert_same_run(reference, tmp_path / "run")


@pytest.mark.parametrize("address", ["local:0", "local:x", "local:", "http://host:8786"])
def test_a_bad_address_is_bad_input(config_file: Path, tmp_path: Path, address: str,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evolve", str(config_file), "--dask", address, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "compute.address" in err
    assert not (tmp_path / "run").exists()


def test_tls_files_go_together(config_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text("")
    assert main(["evolve", str(config_file), "--dask", "tls://127.0.0.1:1", "--dask-tls-ca", str(ca),
                 "--out", str(tmp_path / "run")]) == 2
    assert "--dask-tls-cert" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


# --- faults ------------------------------------------------------------------------------------


def test_an_unreachable_scheduler_is_one_line_exit_2_and_nothing_written(
    config_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ga.games.cluster, "CONNECT_TIMEOUT_S", 1.0)
    address = f"tcp://127.0.0.1:{free_port()}"
    assert main(["evolve", str(config_file), "--dask", address, "--out", str(tmp_path / "run"), "--quiet"]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1, captured.err
    assert captured.err.startswith("othello-ga: error: ") and address in captured.err
    assert not (tmp_path / "run").exists()

    # resuming a run on it changes nothing either
    assert main(["evolve", str(config_file), "--generations", "2", "--out", str(tmp_path / "local"), "--quiet",
                 "--no-plots"]) == 0
    before = snapshot(tmp_path / "local")
    capsys.readouterr()
    assert main(["resume", str(tmp_path / "local"), "--generations", "3", "--dask", address, "--quiet"]) == 2
    assert address in capsys.readouterr().err
    assert snapshot(tmp_path / "local") == before


def test_a_tls_scheduler_without_certificates_is_one_line_exit_2(
    config_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    address = f"tls://127.0.0.1:{free_port()}"
    assert main(["evolve", str(config_file), "--dask", address, "--out", str(tmp_path / "run"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and address in err and "--dask-tls-ca" in err, err
    assert not (tmp_path / "run").exists()


def test_a_refused_connection_leaves_no_client_behind() -> None:
    # A Client that fails to start is freed only by the cycle collector, and its
    # __del__ blocks for up to 20 s: left to a later collection on some Dask
    # thread it stalled the next client. connect() must free it at once.
    def clients() -> set[int]:
        return {id(thing) for thing in gc.get_objects() if isinstance(thing, distributed.Client)}

    gc.collect()
    before = clients()
    gc.disable()
    try:
        with pytest.raises(ga.games.cluster.ClusterUnavailable, match="cannot reach"):
            with ga.games.cluster.connect(f"tcp://127.0.0.1:{free_port()}", 1, timeout=0.5):
                pass
        assert clients() <= before
    finally:
        gc.enable()


def test_a_killed_worker_changes_nothing(cluster: Any, reference: Path, tmp_path: Path) -> None:
    client = distributed.Client(cluster, set_as_default=False)
    pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]

    class KillAfterFirstGeneration:
        def __call__(self, stage: Any) -> KillAfterFirstGeneration:
            return self

        def update(self, record: dict[str, Any]) -> None:
            if record.get("generation") == 1:
                os.kill(victim, signal.SIGKILL)  # the next generation's tasks go out while it dies

        def close(self) -> None:
            pass

    try:
        result = evolve(config_from_dict(experiment()), out=tmp_path / "run", dask=cluster.scheduler_address,
                        progress=KillAfterFirstGeneration())
        assert result.finished
        assert_same_run(reference, tmp_path / "run")
        client.wait_for_workers(2, timeout=30)
        assert victim not in client.run(os.getpid).values()  # the worker really died and was replaced
    finally:
        client.close()


@pytest.mark.shows("resume --local")
def test_a_lost_cluster_stops_with_exit_1_and_the_run_resumes_locally(
    config_file: Path, reference: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, short_timeouts: None,
) -> None:
    doomed = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, host="127.0.0.1",
                                      protocol="tcp", dashboard_address=None, silence_logs=50,
                                     scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})

    class CloseClusterAfterFirstGeneration(ga.cli.progress.Progress):
        def update(self, record: dict[str, Any]) -> None:
            super().update(record)
            if record.get("generation") == 1:
                doomed.close()

    monkeypatch.setattr(ga.cli.run, "Progress", CloseClusterAfterFirstGeneration)
    out = tmp_path / "run"
    try:
        code = main(["evolve", str(config_file), "--dask", doomed.scheduler_address, "--out", str(out), "--quiet",
                     "--no-plots"])
    finally:
        doomed.close()
    captured = capsys.readouterr()
    assert code == 1
    assert captured.err.count("\n") == 1, captured.err
    assert "lost the Dask cluster" in captured.err and f"othello-ga resume {out} --local" in captured.err
    assert read_checkpoint(out).generation == 1

    monkeypatch.undo()
    assert main(["resume", str(out), "--local", "--quiet", "--no-plots"]) == 0
    assert_same_run(reference, out)
    assert load_config(out / "config.toml").compute.backend == "dask"  # --local is not saved


def test_kill_9_of_the_main_process_on_dask_then_resume_on_dask(cluster: Any, tmp_path: Path) -> None:
    # A run long enough to be killed mid-way; its local twin is the reference.
    data = experiment(experiment={"generations": 30})
    config = tmp_path / "long.toml"
    config.write_text(tomli_w.dumps(data), encoding="utf-8")
    evolve(config_from_dict(data), out=tmp_path / "local")
    run_dir = tmp_path / "run"
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    process = subprocess.Popen(
        [sys.executable, "-m", "ga.cli", "evolve", str(config), "--out", str(run_dir), "--quiet", "--no-plots",
         "--dask", cluster.scheduler_address], cwd=root, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert process.poll() is None, f"the run ended early with exit code {process.returncode}"
            rows = run_dir / "generations.csv"
            if (run_dir / "checkpoint.json").exists() and rows.exists() and rows.read_text().count("\n") > 3:
                break
            time.sleep(0.01)
        else:
            pytest.fail("the run did not reach 3 generations in time")
    finally:
        process.kill()  # SIGKILL: no handler, no cleanup, the client vanishes from the scheduler
        process.communicate()
    assert process.returncode == -signal.SIGKILL
    assert read_checkpoint(run_dir).generation < 29
    with open(run_dir / "generations.csv", "a", encoding="utf-8") as handle:
        handle.write("29,48,1")  # half a row, as a write cut short by the kill
    resumed = subprocess.run(
        [sys.executable, "-m", "ga.cli", "resume", str(run_dir), "--quiet", "--no-plots",
         "--dask", cluster.scheduler_address], cwd=root, capture_output=True, text=True, timeout=120, env=env,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "Traceback" not in resumed.stderr
    assert_same_run(tmp_path / "local", run_dir)


def test_a_killed_scheduler_process_then_a_resume_on_another_cluster(
    config_file: Path, reference: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, short_timeouts: None,
) -> None:
    scheduler_file = tmp_path / "scheduler.json"
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                  "--port", "0", "--no-dashboard", "--scheduler-file", str(scheduler_file)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    worker = None
    try:
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file",
                                   str(scheduler_file), "--nthreads", "1", "--no-dashboard"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        import json

        address = json.loads(scheduler_file.read_text())["address"]
        with distributed.Client(address, set_as_default=False, timeout=30) as client:
            client.wait_for_workers(1, timeout=60)

        class KillSchedulerAfterFirstGeneration(ga.cli.progress.Progress):
            def update(self, record: dict[str, Any]) -> None:
                super().update(record)
                if record.get("generation") == 1:
                    scheduler.send_signal(signal.SIGKILL)
                    scheduler.wait()

        monkeypatch.setattr(ga.cli.run, "Progress", KillSchedulerAfterFirstGeneration)
        out = tmp_path / "run"
        assert main(["evolve", str(config_file), "--dask", address, "--out", str(out), "--quiet", "--no-plots"]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and address in err, err
        assert read_checkpoint(out).generation == 1
        monkeypatch.undo()
        assert main(["resume", str(out), "--dask", "local:2", "--quiet", "--no-plots"]) == 0
        assert_same_run(reference, out)
    finally:
        for process in (worker, scheduler):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()


@pytest.mark.slow  # an in-process TLS cluster beside the other tests' clusters; CI once stalled here
@pytest.mark.shows("evolve --dask-tls-ca", "evolve --dask-tls-cert", "evolve --dask-tls-key", "resume --dask-tls-ca",
                   "resume --dask-tls-cert", "resume --dask-tls-key")
def test_a_tls_cluster_takes_the_certificates_from_the_command_line(
    config_file: Path, reference: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if subprocess.run(["openssl", "version"], capture_output=True).returncode != 0:
        pytest.skip("openssl is not installed")
    dask = pytest.importorskip("dask")
    from distributed.security import Security

    ca, ca_key, cert, key = (tmp_path / name for name in ("ca.pem", "ca.key", "cert.pem", "key.pem"))
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=test-ca",
                    "-keyout", str(ca_key), "-out", str(ca)], check=True, capture_output=True)
    subprocess.run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(tmp_path / "req.csr")],
                   check=True, capture_output=True)
    subprocess.run(["openssl", "x509", "-req", "-in", str(tmp_path / "req.csr"), "-CA", str(ca), "-CAkey", str(ca_key),
                    "-CAcreateserial", "-days", "1", "-copy_extensions", "copy", "-out", str(cert)],
                   check=True, capture_output=True)
    security = Security(tls_ca_file=str(ca), tls_scheduler_cert=str(cert), tls_scheduler_key=str(key),
                        tls_worker_cert=str(cert), tls_worker_key=str(key), tls_client_cert=str(cert),
                        tls_client_key=str(key), require_encryption=True)
    saved = copy.deepcopy(dask.config.config)
    secure = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, host="127.0.0.1",
                                      protocol="tls", security=security, dashboard_address=None, silence_logs=50,
                                     scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
    try:
        address = secure.scheduler_address
        assert address.startswith("tls://")
        # without the certificates the scheduler is out of reach
        assert main(["evolve", str(config_file), "--dask", address, "--out", str(tmp_path / "refused")]) == 2
        assert address in capsys.readouterr().err
        assert not (tmp_path / "refused").exists()
        out = tmp_path / "run"
        assert main(["evolve", str(config_file), "--dask", address, "--dask-tls-ca", str(ca), "--dask-tls-cert",
                     str(cert), "--dask-tls-key", str(key), "--out", str(out), "--quiet", "--no-plots"]) == 0
        assert_same_run(reference, out)
        # resume takes the same options: refused without them, and with them it plays on the cluster
        dask.config.config.clear()
        dask.config.config.update(copy.deepcopy(saved))  # the options set Dask's configuration in this process
        assert main(["resume", str(out), "--generations", "5", "--dask", address, "--quiet", "--no-plots"]) == 2
        assert address in capsys.readouterr().err
        assert main(["resume", str(out), "--generations", "5", "--dask", address, "--dask-tls-ca", str(ca),
                     "--dask-tls-cert", str(cert), "--dask-tls-key", str(key), "--quiet", "--no-plots"]) == 0
        assert len(pd.read_csv(out / "generations.csv")) == 5
    finally:
        secure.close()
        dask.config.config.clear()
        dask.config.config.update(saved)


@contextlib.contextmanager
def listener(reply: bytes | None) -> Iterator[str]:
    """A loopback server that accepts connections and sends ``reply`` (None: says nothing); yields its address."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            accepted.append(connection)
            if reply is not None:
                with contextlib.suppress(OSError):
                    connection.sendall(reply)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()
        for connection in accepted:
            connection.close()


@pytest.mark.shows("evolve --dask-timeout", "resume --dask-timeout")
@pytest.mark.parametrize("command", ["evolve", "resume"])
def test_a_scheduler_that_accepts_and_never_answers_is_given_up_after_the_timeout(
    config_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    run_dir = tmp_path / "run"
    if command == "resume":
        assert main(["evolve", str(config_file), "--out", str(run_dir), "--quiet", "--no-plots", "--workers", "1"]) == 0
        capsys.readouterr()
    before = snapshot(tmp_path)
    with listener(None) as address:
        argv = ["evolve", str(config_file), "--out", str(run_dir)] if command == "evolve" else ["resume", str(run_dir)]
        code = main([*argv, "--dask", address, "--dask-timeout", "0.5", "--quiet", "--no-plots", "--generations", "6"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert f"the Dask scheduler at '{address}' did not answer within 0.5 s (--dask-timeout)" in err
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("reply", [b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", b"\x05" + bytes(7) + b"short"],
                         ids=["a web server", "a frame that is not Dask's"])
def test_a_server_that_is_not_a_scheduler_is_named_in_one_line(
    config_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], reply: bytes
) -> None:
    with listener(reply) as address:
        code = main(["evolve", str(config_file), "--out", str(tmp_path / "run"), "--dask", address, "--dask-timeout",
                     "2", "--quiet", "--no-plots"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"'{address}' answered, but not as a Dask scheduler does" in err
    assert not (tmp_path / "run").exists()


def test_a_real_scheduler_s_greeting_passes_the_check() -> None:
    cluster = distributed.LocalCluster(n_workers=0, processes=False, host="127.0.0.1", protocol="tcp://",
                                       dashboard_address=None, scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
    try:
        ga.games.cluster.check_scheduler(cluster.scheduler_address, 5.0)  # raises if the greeting were refused
    finally:
        cluster.close()


def dask_message(message: Any) -> bytes:
    """Returns ``message`` as a Dask scheduler sends it: a size, then frames (a count, their lengths, the frames)."""
    frames = distributed.protocol.dumps(message) if not isinstance(message, list) else message
    body = len(frames).to_bytes(8, "little") + b"".join(len(f).to_bytes(8, "little") for f in frames) + b"".join(frames)
    return len(body).to_bytes(8, "little") + body


@pytest.mark.parametrize(("address", "reply", "fragment"), [
    ("listener", [b"\xc1\xc1\xc1 not msgpack"], "answered, but not as a Dask scheduler does"),
    ("listener", {"compression": None, "python": (3, 11, 7), "pickle-protocol": 5},
     "did not answer within 1 s (--dask-timeout)"),
    ("ucx://127.0.0.1:1", None, "this installation of Dask cannot use its transport"),
], ids=["framed junk", "a greeting, then silence", "ucx"])
def test_a_scheduler_that_is_not_one_or_a_transport_dask_lacks_is_one_line_in_a_real_process(
    config_file: Path, tmp_path: Path, address: str, reply: Any, fragment: str
) -> None:
    # Seen in a real process, where Dask's logging reaches stderr: framed junk made Dask log a CRITICAL traceback
    # before the one line; a silent scheduler gave an empty reason; ucx:// (a scheme the docs allow) a traceback.
    environment = {key: value for key, value in os.environ.items() if key != "OTHELLO_GA_DEBUG"}
    with listener(dask_message(reply)) if address == "listener" else contextlib.nullcontext(address) as where:
        completed = subprocess.run(
            [sys.executable, "-m", "ga.cli", "evolve", str(config_file), "--out", str(tmp_path / "run"), "--dask",
             where, "--dask-timeout", "1", "--quiet", "--no-plots"],
            env=environment, capture_output=True, text=True, timeout=120)
    lines = completed.stderr.splitlines()
    assert completed.returncode == 2 and len(lines) == 1, completed.stderr
    assert lines[0].startswith("othello-ga: error: ") and fragment in lines[0] and where in lines[0], lines
    assert not (tmp_path / "run").exists()
