"""mx.profiler on torch.profiler: configuration, run/stop/pause, chrome trace, aggregate tables."""
import json
import time

import pytest

import mxtorch as mx
from mxtorch import profiler
from mxtorch.base import MXNetError


@pytest.fixture(autouse=True)
def fresh_profiler(monkeypatch, tmp_path):
    """Each test gets a stopped profiler with MXNet's default settings, writing into tmp_path."""
    monkeypatch.setattr(profiler, "_PROFILER", profiler._Profiler())
    monkeypatch.chdir(tmp_path)
    yield
    profiler.set_state("stop")


def run_work():
    """A few distinctive torch operators through mxtorch's front end."""
    a = mx.nd.ones((4, 4))
    return mx.nd.cos(a * 2).asnumpy()


def test_set_config_validates_and_keeps_earlier_options():
    profiler.set_config(filename="first.json", aggregate_stats=True)
    profiler.set_config(profile_memory="False")                 # MXNet's string forms parse
    config = profiler._PROFILER.config
    assert config["filename"] == "first.json"
    assert config["aggregate_stats"] is True and config["profile_memory"] is False
    with pytest.raises(MXNetError, match="unknown option.*bogus"):
        profiler.set_config(bogus=1)
    with pytest.raises(MXNetError, match="profile_all"):
        profiler.set_config(profile_all="maybe")
    with pytest.raises(MXNetError, match="dump_period"):
        profiler.set_config(dump_period="soon")


def test_set_state_rejects_unknown_state():
    with pytest.raises(MXNetError, match="'run' or 'stop'"):
        profiler.set_state("go")
    with pytest.raises(MXNetError, match="profile_process"):
        profiler.set_state("run", profile_process="client")


def test_dump_writes_chrome_trace_with_operators_and_domain_objects(tmp_path):
    profiler.set_config(profile_all=True, filename=str(tmp_path / "trace.json"))
    before = time.time_ns() / 1000
    profiler.set_state("run")
    domain = profiler.Domain("training")
    with domain.new_task("step"):
        run_work()
    counter = domain.new_counter("samples", 5)
    counter += 3
    counter.decrement(2)
    domain.new_marker("epoch_end").mark("global")
    profiler.set_state("stop")
    after = time.time_ns() / 1000
    profiler.dump()
    trace = json.loads((tmp_path / "trace.json").read_text())
    assert trace["displayTimeUnit"] == "ms"
    events = trace["traceEvents"]
    names = {event.get("name") for event in events}
    assert {"aten::cos", "aten::mul", "aten::ones"} <= names
    step = [e for e in events if e.get("name") == "step" and e.get("ph") == "X"]
    assert len(step) == 1 and step[0]["cat"] == "training"
    assert before <= step[0]["ts"] <= after             # absolute microseconds, as MXNet wrote
    cos = next(e for e in events if e.get("name") == "aten::cos")
    assert step[0]["ts"] <= cos["ts"] <= step[0]["ts"] + step[0]["dur"]   # nested in the task
    counts = [e["args"]["samples"] for e in events if e.get("ph") == "C" and e.get("name") == "samples"]
    assert counts == [5, 8, 6]
    marks = [e for e in events if e.get("ph") == "i" and e.get("cat") == "training"]
    assert len(marks) == 1 and marks[0]["name"] == "epoch_end" and marks[0]["s"] == "g"
    assert counter.value == 6 and str(counter) == "samples" and str(domain) == "training"


def test_nothing_is_recorded_while_stopped_or_paused(tmp_path):
    profiler.set_config(aggregate_stats=True, filename=str(tmp_path / "p.json"))
    run_work()                                          # before run: not recorded
    profiler.set_state("run")
    mx.nd.ones((2,)) * 3
    profiler.pause()
    mx.nd.cos(mx.nd.ones((2,)))                         # paused: not recorded
    counter = profiler.Counter(profiler.Domain("d"), "c", 1)
    profiler.resume()
    mx.nd.ones((2,)) * 4
    profiler.set_state("stop")
    mx.nd.cos(mx.nd.ones((2,)))                         # stopped: not recorded
    counter.increment()
    table = json.loads(profiler.dumps(format="json"))
    operators = table["Time"]["operator"]
    assert operators["aten::mul"]["Count"] == 2
    assert "aten::cos" not in operators
    assert "Counter" not in table
    profiler.dump()
    events = json.loads((tmp_path / "p.json").read_text())["traceEvents"]
    assert sum(e.get("name") == "aten::mul" for e in events) == 2
    assert not any(e.get("name") == "aten::cos" for e in events)


def test_dumps_is_empty_without_aggregate_stats():
    profiler.set_state("run")
    run_work()
    profiler.set_state("stop")
    assert profiler.dumps() == ""


def table_sections(text):
    """{section title: its lines} of a dumps() table (a title is the line above '=====')."""
    lines = text.splitlines()
    sections, title = {}, None
    for index, line in enumerate(lines):
        if index + 1 < len(lines) and lines[index + 1] == "=================":
            title = line
            sections[title] = []
        elif title is not None and line and not line.startswith("="):
            sections[title].append(line)
    return sections


def test_dumps_table_counts_tasks_frames_events_and_counters():
    profiler.set_config(aggregate_stats=True)
    profiler.set_state("run")
    domain = profiler.Domain("net")
    task = profiler.Task(domain, "forward")
    for _ in range(3):
        task.start()
        time.sleep(0.002)
        task.stop()
    frame = domain.new_frame("batch")
    frame.start()
    frame.stop()
    with profiler.Event("io"):
        pass
    counter = domain.new_counter("queue")
    counter.set_value(4)
    counter += 6
    counter -= 1
    profiler.set_state("stop")
    text = profiler.dumps()
    assert text.startswith("\nProfile Statistics:\n\tNote the difference in units for different entries.\n")
    sections = table_sections(text)
    assert set(sections) == {"event", "net", "net (counters)", "net,frame"}
    assert sections["net"][0].split() == ["Name", "Total", "Count", "Time", "(ms)", "Min", "Time", "(ms)", "Max",
                                          "Time", "(ms)", "Avg", "Time", "(ms)"]
    forward = next(line for line in sections["net"] if line.startswith("forward"))
    fields = forward.split()
    assert fields[1] == "3"                                   # three passes
    total, minimum, maximum, average = map(float, fields[2:])
    assert minimum >= 2.0 and total >= 6.0                    # each pass slept 2 ms
    assert abs(average - total / 3) < 1e-3 and minimum <= maximum
    assert forward.index("3") + 1 == 41                       # count right-aligned to column 41
    queue = next(line for line in sections["net (counters)"] if line.startswith("queue"))
    assert queue.split() == ["queue", "3", "4", "10", "9"]    # count, min, max, last value
    assert sections["net,frame"][2].split()[:2] == ["batch", "1"]
    assert sections["event"][2].split()[:2] == ["io", "1"]


def test_dumps_json_sorting_and_reset():
    profiler.set_config(aggregate_stats=True)
    profiler.set_state("run")
    domain = profiler.Domain("d")
    for name, passes in (("once", 1), ("thrice", 3), ("twice", 2)):
        task = domain.new_task(name)
        for _ in range(passes):
            task.start()
            task.stop()
    profiler.set_state("stop")
    ascending = json.loads(profiler.dumps(format="json", sort_by="count", ascending=True))
    assert list(ascending["Time"]["d"]) == ["once", "twice", "thrice"]
    assert ascending["Unit"] == {"Time": "ms"}
    descending = json.loads(profiler.dumps(format="json", sort_by="count", reset=True))
    assert list(descending["Time"]["d"]) == ["thrice", "twice", "once"]
    assert descending["Time"]["d"]["thrice"]["Count"] == 3
    assert json.loads(profiler.dumps(format="json"))["Time"] == {}     # reset cleared them
    with pytest.raises(MXNetError, match="format"):
        profiler.dumps(format="xml")
    with pytest.raises(MXNetError, match="sort_by"):
        profiler.dumps(sort_by="name")


def test_dumps_while_running_includes_the_current_session():
    profiler.set_config(aggregate_stats=True)
    profiler.set_state("run")
    mx.nd.ones((2,)) * 5
    first = json.loads(profiler.dumps(format="json"))["Time"]["operator"]["aten::mul"]["Count"]
    mx.nd.ones((2,)) * 6
    profiler.set_state("stop")
    second = json.loads(profiler.dumps(format="json"))["Time"]["operator"]["aten::mul"]["Count"]
    assert (first, second) == (1, 2)


def test_dump_finished_false_keeps_recording(tmp_path):
    profiler.set_config(filename=str(tmp_path / "t.json"))
    profiler.set_state("run")
    mx.nd.ones((2,)) * 5
    profiler.dump(finished=False)
    first = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    mx.nd.ones((2,)) * 6
    profiler.dump()                                     # finished: stops the profiler
    second = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    assert sum(e.get("name") == "aten::mul" for e in first) == 1
    assert sum(e.get("name") == "aten::mul" for e in second) == 2
    assert not profiler._PROFILER.running


def test_deprecated_aliases(tmp_path):
    with pytest.warns(DeprecationWarning):
        profiler.profiler_set_config(mode="all", filename=str(tmp_path / "old.json"))
    assert profiler._PROFILER.config["profile_all"] is True
    with pytest.warns(DeprecationWarning):
        profiler.profiler_set_state("run")
    run_work()
    with pytest.warns(DeprecationWarning):
        profiler.dump_profile()
    events = json.loads((tmp_path / "old.json").read_text())["traceEvents"]
    assert any(e.get("name") == "aten::cos" for e in events)
    with pytest.raises(MXNetError, match="mode"), pytest.warns(DeprecationWarning):
        profiler.profiler_set_config(mode="everything")


def test_server_process_is_ignored_with_a_warning():
    with pytest.warns(RuntimeWarning, match="server"):
        profiler.set_state("run", profile_process="server")
    assert not profiler._PROFILER.running
    profiler.set_kvstore_handle("handle")
    assert profiler.profiler_kvstore_handle == "handle"


def test_domain_objects_validate_their_use():
    domain = profiler.Domain("d")
    task = domain.new_task("t")
    with pytest.raises(MXNetError, match="before start"):
        task.stop()
    task.start()
    with pytest.raises(MXNetError, match="twice"):
        task.start()
    task.stop()
    with pytest.raises(MXNetError, match="Domain"):
        profiler.Task("not a domain", "t")
    with pytest.raises(MXNetError, match="scope"):
        domain.new_marker("m").mark("galaxy")
    assert str(task) == "t" and str(profiler.Event("e")) == "e" and str(domain.new_frame("f")) == "f"
