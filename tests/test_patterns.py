"""Pattern evaluations (n-tuple networks): values against the slow reading, the search's exactness, formats, import.

Oracles: tests/reference.py reads a network (and a published file) digit by
digit, the plain search (alphabeta_plain) sums every leaf from scratch, the
published networks' League scores (their README, measured by an independent
implementation), and exports compiled and run.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import Board, Player, build_player, record_game
from engine._patterns import _bmi2_indices, _portable_indices
from engine._players import move_value, search_match
from engine.evaluation import Evaluation, FeatureError
from engine.patterns import (
    LINES, TUPLE_SETS, NTuple, PatternError, PatternNetwork, compiled, set_weights, tuple_set,
)
from ga.ntuple_format import NtupleFormatError, as_network, parse_player, player_text, read_player
from ga.weights import (
    WeightsError, evaluation_npy_bytes, format_evaluation, load_evaluation, load_weights, parse_evaluation,
)

from reference import BLACK, Position, legal_moves, network_value, play, published_value, random_position

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = ROOT.parent / "shared" / "ntuple-players"
#: The published networks and the colour convention each plays by (the data's README).
CONVENTIONS = {
    "Jaskowski2014All2": "invert", "Jaskowski2014All123": "negate", "Burrow2011ETDL": "negate",
    "SzubertJaskowskiKrawiec2013ETDL": "negate", "SzubertJaskowskiKrawiec2013CTDL": "negate",
    "Manning2010Nash70": "negate", "Manning2010TCIAG1": "negate", "Manning2010TCIAG2": "negate",
    "Manning2010Nash80": "negate", "Manning2010GECCO": "invert", "RunnarsonLucas2014IPrefN": "invert",
    "RunnarsonLucas2014IPref1": "invert",
}
needs_published = pytest.mark.skipif(not PUBLISHED.is_dir(), reason="the published networks are not beside the checkout")


def rounding(network: PatternNetwork) -> float:
    """Returns how far the engine's value may be from the exact sum: each group's entry is within half a unit."""
    tables = compiled(network)
    return tables.n_groups * tables.scale / 2


def random_network(names: list[str], phases: tuple[int, ...], colours: str, seed: int) -> PatternNetwork:
    """Returns the named sets' network with random weights."""
    network = tuple_set(names, phases, colours)
    return network.with_weights(np.random.default_rng(seed).normal(0, 1, network.n_weights))


def positions(count: int, seed: int = 0) -> list[Position]:
    """Returns positions of random games at every stage, both colours to move, passes and full boards included."""
    return [random_position(seed * 1000 + k, k % 64) for k in range(count)]


NETWORKS = {
    "all-2 invert": random_network(["all-2"], (60,), "invert", 1),
    "all-3 negate, 3 phases": random_network(["all-3"], (60, 40, 20), "negate", 2),
    "2x2 and engine shapes": random_network(["2x2", "engine-shapes"], (60, 30), "invert", 3),
    "all-4 negate": random_network(["all-4"], (60,), "negate", 4),
}


# --- values -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NETWORKS)
def test_the_value_is_the_slow_readings_on_random_positions(name: str) -> None:
    network = NETWORKS[name]
    evaluation = Evaluation((0.0,) * 64, patterns=network)
    player = build_player("wpc:1", weights=evaluation)
    tolerance = rounding(network)
    for position in positions(150, 7):
        expected = network_value(position, position.turn, network)
        assert player.value(position.player, position.opponent, position.turn) == pytest.approx(expected, abs=tolerance)


@pytest.mark.parametrize("name", NETWORKS)
def test_a_childs_value_from_its_parents_frame_is_the_whole_boards(name: str) -> None:
    tables = compiled(NETWORKS[name])
    for position in positions(80, 8):
        for square in legal_moves(position):
            child, whole = tables.indices_after(position.player, position.opponent, position.turn, square)
            assert child == whole
            after = play(position, square)
            # The child's value for the side that moved, without building the child: to the bit, the whole board's.
            assert tables.value_after(position.player, position.opponent, position.turn, square) == tables.value(
                after.opponent, after.player, position.turn)


@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
def test_the_pext_path_gives_the_portable_paths_indices(black: int, white: int) -> None:
    white &= ~black
    masks = [sum(1 << q for q in line) for line in LINES] + [0x0303, 0x070707, 0x1F1F, 0x42FF]
    bmi2 = _bmi2_indices(black, white, masks)
    if bmi2 is None:
        pytest.skip("this CPU gathers no bits by pext")
    assert bmi2 == _portable_indices(black, white, masks)


def images(position: Position) -> list[Position]:
    """Returns a position under the board's 8 symmetries."""
    def moved(mask: int, symmetry: int) -> int:
        return sum(1 << _image(square, symmetry) for square in range(64) if mask >> square & 1)
    return [Position(moved(position.black, s), moved(position.white, s), position.turn) for s in range(8)]


def _image(square: int, symmetry: int) -> int:
    rank, file = divmod(square, 8)
    if symmetry & 4:
        rank, file = file, rank
    if symmetry & 2:
        rank = 7 - rank
    if symmetry & 1:
        file = 7 - file
    return 8 * rank + file


@pytest.mark.parametrize("names", [["all-2"], ["all-3"], ["2x2"], ["engine-shapes"]])
def test_a_symmetric_tuple_set_values_the_8_images_of_a_position_alike(names: list[str]) -> None:
    tables = compiled(random_network(names, (60,), "invert", 11))
    for position in positions(40, 9):
        values = {tables.value(image.player, image.opponent, image.turn) for image in images(position)}
        assert len(values) == 1, values  # integer sums: equal to the bit


def test_the_named_sets_count_the_weights_docs_config_lists() -> None:
    # Jaskowski (2014): 32 straight 2-tuples, 288 weights; the other counts follow from the shapes.
    assert set_weights("all-2") == 288
    assert [set_weights(name) for name in ("all-3", "all-4", "2x2")] == [648, 1701, 810]
    assert set_weights("all-2", phases=3) == 3 * 288
    docs = (ROOT / "docs" / "config.md").read_text(encoding="utf-8")
    for name in TUPLE_SETS:
        assert f"`{name}`" in docs and f"{set_weights(name):,}" in docs, name


def test_an_unknown_tuple_set_is_named_with_the_sets() -> None:
    with pytest.raises(PatternError, match="unknown tuple set 'all-5'; the sets are all-2"):
        tuple_set("all-5")


# --- players -----------------------------------------------------------------------------------------------


def board_of(position: Position) -> Board:
    """Returns the engine's board of a reference position."""
    from reference import to_text  # noqa: PLC0415

    return Board(to_text(position))



def network_players(kind: str, depth: int, eps: float, end: int = 0) -> list[tuple[Player, Player]]:
    first = Evaluation(tuple(np.random.default_rng(5).uniform(-3, 3, 64)), patterns=NETWORKS["all-2 invert"])
    second = Evaluation((0.0,) * 64, ("mobility",), (2.0,), patterns=NETWORKS["all-3 negate, 3 phases"])
    def make(evaluation: Evaluation, d: int) -> Player:
        return Player(kind, d, evaluation.vector(), eps, 40, end, evaluation.features, compiled(evaluation.patterns))

    return [(make(first, depth), make(second, max(1, depth - 1))), (make(second, depth), make(first, depth))]


@pytest.mark.parametrize(("depth", "games"), [(1, 40), (2, 30), (3, 20), (4, 6)])
def test_the_search_plays_the_plain_searchs_games_move_by_move(depth: int, games: int) -> None:
    fast_pairs = network_players("alphabeta", depth, 0.1)
    plain_pairs = network_players("alphabeta_plain", depth, 0.1)
    for (fast_black, fast_white), (plain_black, plain_white) in zip(fast_pairs, plain_pairs):
        for seed in range(games):
            assert record_game(fast_black, fast_white, seed) == record_game(plain_black, plain_white, seed), seed


def test_one_ply_and_look_ahead_scores_are_the_references() -> None:
    evaluation = Evaluation(tuple(np.random.default_rng(6).uniform(-3, 3, 64)), ("frontier",), (-1.5,),
                            patterns=NETWORKS["all-3 negate, 3 phases"])
    from reference import evaluate  # noqa: PLC0415

    for depth in (1, 2):
        player = build_player(f"wpc:{depth}", weights=evaluation)
        for position in positions(40, 10):
            board = board_of(position)
            scores = player.scores(board)
            expected = {move: lookahead(play(position, move), depth - 1, position.turn, evaluation, evaluate)
                        for move in legal_moves(position)}
            assert scores.keys() == expected.keys()
            for move in scores:
                assert scores[move] == pytest.approx(expected[move], abs=1e-5), (depth, move)


def lookahead(position: Position, plies: int, me: int, evaluation: Evaluation, evaluate) -> float:  # noqa: ANN001
    moves = legal_moves(position)
    if plies == 0 or not moves:
        return evaluate(position, me, evaluation)
    return sum(lookahead(play(position, m), plies - 1, me, evaluation, evaluate) for m in moves) / len(moves)


def test_end_and_eps_apply_to_a_network_player() -> None:
    exact = network_players("alphabeta", 2, 0.0, end=10)[0]
    games = [record_game(*exact, seed) for seed in range(6)]
    plain = [record_game(*network_players("alphabeta_plain", 2, 0.0, end=10)[0], seed) for seed in range(6)]
    assert games == plain
    random_moves = network_players("wpc", 1, 1.0)[0]
    uniform = (build_player("wpc:1@heuristic,eps=1"), build_player("wpc:1@lr06,eps=1"))
    # eps = 1: every move at random, whatever the evaluation.
    assert [record_game(*random_moves, s) for s in range(5)] == [record_game(*uniform, s) for s in range(5)]


def test_move_value_reads_the_colour_of_a_negate_network() -> None:
    evaluation = Evaluation((0.0,) * 64, patterns=NETWORKS["all-4 negate"])
    player = build_player("alphabeta:2", weights=evaluation)
    position = random_position(3, 20)
    board = board_of(position)
    for square, score in player.scores(board).items():
        assert move_value(player, position.player, position.opponent, square, colour=position.turn)[0] == score


# --- the published networks ---------------------------------------------------------------------------------


@needs_published
@pytest.mark.parametrize("name", sorted(CONVENTIONS))
def test_an_imported_network_values_positions_as_the_published_file_reads(name: str) -> None:
    text = (PUBLISHED / f"{name}.player").read_text()
    colours = CONVENTIONS[name]
    network = parse_player(text, colours)
    player = build_player("wpc:1", weights=Evaluation((0.0,) * 64, patterns=network))
    for position in positions(25, 12):
        black_value = published_value(text, position.black, position.white)
        if colours == "invert":  # the side to move plays its own discs as black
            expected = published_value(text, position.player, position.opponent)
        else:
            expected = black_value if position.turn == BLACK else -black_value
        assert player.value(position.player, position.opponent, position.turn) == pytest.approx(
            expected, abs=rounding(network) + 1e-9 * abs(expected))


@needs_published
def test_jaskowskis_2_tuple_network_scores_the_published_096_against_heuristic() -> None:
    # The League protocol: both 1 ply, eps 0.1 each, both colours; the data's README: 0.960.
    evaluation = Evaluation((0.0,) * 64, patterns=read_player(PUBLISHED / "Jaskowski2014All2.player", "invert"))
    network = build_player("wpc:1,eps=0.1", weights=evaluation)
    diffs, _ = search_match(network, build_player("wpc:1@heuristic,eps=0.1"), np.arange(6000, dtype=np.uint64))
    score = (np.sum(diffs > 0) + 0.5 * np.sum(diffs == 0)) / len(diffs)
    assert 0.95 <= score <= 0.97


@needs_published
def test_the_wrong_colour_convention_plays_far_worse() -> None:
    # What proves the convention part of the network: All2 read as negate loses its edge against heuristic.
    wrong = Evaluation((0.0,) * 64, patterns=read_player(PUBLISHED / "Jaskowski2014All2.player", "negate"))
    diffs, _ = search_match(build_player("wpc:1,eps=0.1", weights=wrong), build_player("wpc:1@heuristic,eps=0.1"),
                            np.arange(2000, dtype=np.uint64))
    assert (np.sum(diffs > 0) + 0.5 * np.sum(diffs == 0)) / len(diffs) < 0.8


@needs_published
@pytest.mark.parametrize("name", ["Jaskowski2014All123", "Manning2010GECCO", "RunnarsonLucas2014IPref1"])
def test_a_published_network_reads_back_the_very_numbers(name: str) -> None:
    network = read_player(PUBLISHED / f"{name}.player", CONVENTIONS[name])
    again = parse_player(player_text(network), CONVENTIONS[name])
    assert again == network
    assert player_text(again) == player_text(network)


# --- formats -------------------------------------------------------------------------------------------------


def with_network(name: str, squares: bool = True, features: bool = True) -> Evaluation:
    rng = np.random.default_rng(13)
    return Evaluation(tuple(rng.uniform(-2, 2, 64)) if squares else (0.0,) * 64,
                      ("mobility", "parity") if features else (), (1.5, -0.5) if features else (),
                      patterns=NETWORKS[name], source="test")


@pytest.mark.parametrize("fmt", ["json", "c", "python"])
@pytest.mark.parametrize("name", NETWORKS)
def test_every_code_and_file_format_reads_back_as_the_same_evaluation(fmt: str, name: str) -> None:
    evaluation = with_network(name)
    assert parse_evaluation(format_evaluation(evaluation, fmt), "x", fmt) == evaluation


def test_json_with_a_network_is_version_2_and_without_one_stays_version_1() -> None:
    with_one = json.loads(format_evaluation(with_network("all-2 invert"), "json"))
    assert with_one["version"] == 2 and with_one["patterns"]["colours"] == "invert"
    assert json.loads(format_evaluation(Evaluation((1.0,) * 64, ("mobility",), (1.0,)), "json"))["version"] == 1
    del with_one["patterns"]
    with_one["version"] = 1
    assert Evaluation.from_document(with_one).patterns is None  # version 1 still reads


def test_markdown_shows_the_network_and_refuses_to_be_read_back() -> None:
    text = format_evaluation(with_network("all-2 invert", features=False), "markdown")
    assert "## Pattern network" in text and "| `xo` |" in text and "### Tuple 32: 2 squares" in text
    with pytest.raises(WeightsError, match="markdown shows for reading only"):
        parse_evaluation(text, "m", "markdown")


def test_npy_refuses_a_network_in_one_line() -> None:
    with pytest.raises(ValueError, match="not a pattern network; export the evaluation as json"):
        evaluation_npy_bytes(with_network("all-2 invert"))


@pytest.mark.parametrize("name", ["all-2 invert", "all-4 negate"])
def test_the_c_and_python_exports_compute_the_engines_values(tmp_path: Path, name: str) -> None:
    evaluation = with_network(name)
    player = build_player("wpc:1", weights=evaluation)
    sample = positions(60, 14)
    negate = evaluation.patterns.colours == "negate"
    expected = [player.value(p.player, p.opponent, p.turn) for p in sample]
    namespace: dict[str, object] = {}
    exec(compile(format_evaluation(evaluation, "python", name="net"), "net", "exec"), namespace)  # noqa: S102
    value = namespace["net_value"]
    arguments = [(p.player, p.opponent, 0) + ((p.turn,) if negate else ()) for p in sample]
    assert [value(*a) for a in arguments] == pytest.approx(expected, abs=1e-5)
    compiler = subprocess.run(["sh", "-c", "command -v cc || command -v gcc"], capture_output=True, text=True).stdout
    if not compiler.strip():
        pytest.skip("no C compiler")
    (tmp_path / "net.h").write_text(format_evaluation(evaluation, "c", name="net"))
    call = "net_value(p, o, 0, w)" if negate else "net_value(p, o, 0)"
    (tmp_path / "main.c").write_text(
        '#include <stdio.h>\n#include <inttypes.h>\n#include "net.h"\nint main(void) {\n'
        '    uint64_t p, o; int w;\n    while (scanf("%" SCNx64 " %" SCNx64 " %d", &p, &o, &w) == 3)\n'
        f'        printf("%.17g\\n", (double){call});\n    return 0;\n}}\n')
    subprocess.run([compiler.strip(), "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O1",
                    str(tmp_path / "main.c"), "-o", str(tmp_path / "main")], check=True, capture_output=True)
    lines = "".join(f"{p.player:x} {p.opponent:x} {p.turn}\n" for p in sample)
    printed = subprocess.run([str(tmp_path / "main")], input=lines, capture_output=True, text=True, check=True)
    assert [float(v) for v in printed.stdout.split()] == pytest.approx(expected, abs=1e-5)


def test_the_player_format_holds_squares_as_1_tuples_and_refuses_features() -> None:
    table = Evaluation(tuple(float(k) for k in range(64)))
    network = as_network(table)
    player = build_player("wpc:1", weights=Evaluation((0.0,) * 64, patterns=network))
    table_player = build_player("wpc:1", weights=table)
    for position in positions(20, 15):
        assert player.value(position.player, position.opponent, position.turn) == pytest.approx(
            table_player.value(position.player, position.opponent), abs=rounding(network))
    with pytest.raises(ValueError, match="features \\(mobility, parity\\) have no place"):
        as_network(with_network("all-2 invert"))
    with pytest.raises(ValueError, match="negate"):
        as_network(with_network("all-4 negate", features=False))


# --- bad input -----------------------------------------------------------------------------------------------

VALID = "{ 1 { 2 2 { 0 1 } { 7 6 } { 1 2 3 4 5 6 7 8 9 } } }"


@pytest.mark.parametrize(("text", "fragment"), [
    ("{ 2 { 2 1 { 0 1 } { 1 2 3 4 5 6 7 8 9 } } }", "ends before tuple 2's length"),
    ("{ 1 { 2 1 { 0 64 } { 1 2 3 4 5 6 7 8 9 } } }", "tuple 1, copy 1, location 2 must be in 0..63, got 64"),
    ("{ 1 { 2 1 { 5 5 } { 1 2 3 4 5 6 7 8 9 } } }", "tuple 1, copy 1 repeats a location: [5, 5]"),
    ("{ 1 { 2 1 { 0 1 } { 1 2 3 4 nan 6 7 8 9 } } }", "tuple 1's weight 5 of 9 must be a finite number"),
    ("{ 1 { 2 1 { 0 1 } { 1 2 3 4 5 6 7 8 inf } } }", "weight 9 of 9 must be a finite number"),
    ("{ 1 { 2 1 { 0 1 } { 1 2 3 4 5 6 7 8 } } }", "ends before tuple 1's weight 9 of 9"),
    ("{ 1 { 2 1 { 0 1 } { 1 2 3 4 5 6 7 8 9 10 } } }", "holds more numbers after its 1 tuples"),
    ("{ 1 { 11 1 { 0 1 } } }", "tuple 1's length must be in 1..10, got 11"),
    ("{ x }", "the number of tuples must be a whole number"),
    ("{ 1 { 1 1 { 0 } { 1e300 1e300 1e300 } } }", "scale its weights down"),
])
def test_a_malformed_network_file_is_named_with_the_place(text: str, fragment: str) -> None:
    with pytest.raises(NtupleFormatError, match="network file 'f.player': ") as caught:
        parse_player(text, "invert", "f.player")
    assert fragment in str(caught.value)
    assert parse_player(VALID, "invert").n_weights == 9


@pytest.mark.parametrize(("patterns", "fragment"), [
    ({"tuples": [{"copies": [[0, 1]], "weights": [[1] * 8]}]}, "a table of 9 weights per phase, got 8"),
    ({"tuples": [{"copies": [[0, 64]], "weights": [[1] * 9]}]}, "squares are 0..63"),
    ({"tuples": [{"copies": [[3, 3]], "weights": [[1] * 9]}]}, "repeats a square"),
    ({"tuples": [{"copies": [[0, 1]], "weights": [[1] * 9]}], "colours": "swap"}, "must be one of invert, negate"),
    ({"tuples": [{"copies": [[0, 1]], "weights": [[1] * 9]}], "phases": [50]}, "60 first"),
    ({"tuples": [{"copies": [[0, 1]], "weights": [[1] * 9]}], "phases": [60, 30]}, "1 tables for 2 phases"),
    ({"tuples": [{"copies": [[0, 1]], "weights": [["x"] * 9]}]}, "not a number"),
    ({"tuples": []}, "must be a list of tuples"),
    ({"tuples": [{"copies": [[0, 1]], "weights": [[1] * 9]}], "set": "all-2"}, "unknown field 'patterns.set'"),
])
def test_a_malformed_network_in_an_evaluation_file_names_the_field(patterns: dict, fragment: str) -> None:
    document = {"format": "othello-ga evaluation", "version": 2, "end": 0, "patterns": patterns}
    with pytest.raises(FeatureError, match="patterns") as caught:
        Evaluation.from_document(document)
    assert fragment in str(caught.value)


def test_nan_in_an_evaluation_files_network_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "nan.json"
    path.write_text('{"format": "othello-ga evaluation", "version": 2, "end": 0, "patterns": {"tuples": '
                    '[{"copies": [[0, 1]], "weights": [[NaN, 1, 1, 1, 1, 1, 1, 1, 1]]}]}}')
    with pytest.raises(WeightsError, match="finite"):
        load_evaluation(path)


def cli(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ga.cli", *argv], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)


@pytest.mark.shows("export --colours")
def test_colours_is_required_for_a_player_file_and_refused_anywhere_else(tmp_path: Path) -> None:
    (tmp_path / "net.player").write_text(VALID)
    missing = cli("export", "net.player", "--format", "json", "-o", "net.json", cwd=tmp_path)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "--colours invert" in missing.stderr
    assert not (tmp_path / "net.json").exists()
    refused = cli("export", "heuristic", "--colours", "negate", "--format", "json", cwd=tmp_path)
    assert refused.returncode == 2 and "'heuristic' is not one" in refused.stderr
    for colours in ("invert", "negate"):
        done = cli("export", "net.player", "--colours", colours, "--format", "json", "-o", f"{colours}.json",
                   cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert load_evaluation(tmp_path / f"{colours}.json").patterns.colours == colours
    # Anywhere else, a .player says how to import it, since its colours cannot be given there.
    elsewhere = cli("evaluate", "net.player", "--games", "2", cwd=tmp_path)
    assert elsewhere.returncode == 2 and "export net.player --colours invert|negate" in elsewhere.stderr
    with pytest.raises(WeightsError, match="import it once"):
        load_weights(tmp_path / "net.player")


def test_a_player_file_that_is_a_fifo_or_too_large_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.player"
    os.mkfifo(fifo)
    refused = cli("export", "fifo.player", "--colours", "invert", "--format", "json", cwd=tmp_path)
    assert refused.returncode == 2 and "is not a regular file (a FIFO)" in refused.stderr
    huge = tmp_path / "huge.player"
    with huge.open("wb") as handle:
        handle.truncate(65 * 2**20)
    refused = cli("export", "huge.player", "--colours", "invert", "--format", "json", cwd=tmp_path)
    assert refused.returncode == 2 and "more than a network holds" in refused.stderr


def test_an_imported_network_plays_wherever_an_evaluation_is_taken(tmp_path: Path) -> None:
    evaluation = with_network("all-2 invert", squares=False, features=False)
    (tmp_path / "net.json").write_text(format_evaluation(evaluation, "json"))
    done = cli("evaluate", "alphabeta:2@net.json,end=6", "--vs", "wpc:1@heuristic", "--games", "20", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    spec = build_player(f"alphabeta:2@{tmp_path / 'net.json'},end=6", load_weights=load_evaluation)
    direct = build_player("alphabeta:2,end=6", weights=evaluation)
    heuristic = build_player("wpc:1@heuristic")
    assert [record_game(spec, heuristic, s) for s in range(4)] == [record_game(direct, heuristic, s) for s in range(4)]


def test_a_network_too_large_for_the_engine_is_refused() -> None:
    copies = tuple(tuple(range(q, q + 2)) for q in range(0, 60, 2))
    many = PatternNetwork(tuple(NTuple((copy,), np.zeros((1, 9))) for copy in copies * 1), (60,), "invert")
    assert compiled(many).n_groups > 0
    scattered = tuple(NTuple(((a, b, c),), np.zeros((1, 27))) for a in range(0, 8) for b in range(20, 28)
                      for c in range(40, 50))
    with pytest.raises(PatternError, match="groups of squares; the engine takes at most 512"):
        compiled(PatternNetwork(scattered, (60,), "invert"))


@pytest.mark.shows("bench --network")
def test_bench_measures_a_network_against_the_table(tmp_path: Path) -> None:
    (tmp_path / "net.json").write_text(format_evaluation(with_network("all-2 invert", squares=False, features=False),
                                                         "json"))
    done = cli("bench", "--quick", "--only", "patterns", "--network", "net.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = [line.split()[0:3] for line in done.stdout.splitlines() if "self-play," in line]
    assert rows == [["wpc:1", "self-play,", "heuristic"], ["wpc:1", "self-play,", "network"],
                    ["alphabeta:4", "self-play,", "heuristic"], ["alphabeta:4", "self-play,", "network"]]
    assert "ratio network / heuristic table, wpc:1 self-play games/s" in done.stdout
    none = cli("bench", "--quick", "--only", "patterns", cwd=tmp_path)
    assert none.returncode == 0 and "the pattern rows need --network EVALUATION" in none.stdout
    refused = cli("bench", "--quick", "--only", "patterns", "--network", "heuristic", cwd=tmp_path)
    assert refused.returncode == 2 and "has no pattern network" in refused.stderr


def test_rows_that_end_in_a_networks_weights_play_as_the_networks_compiled_players() -> None:
    from engine._players import play_plan  # noqa: PLC0415
    from engine.patterns import layout  # noqa: PLC0415

    rng = np.random.default_rng(21)
    shape = tuple_set(["all-2", "2x2"], (60, 30))
    networks = [shape.with_weights(rng.normal(size=shape.n_weights)) for _ in range(3)]
    squares = rng.uniform(-1, 1, (3, 64))
    rows = np.hstack([squares, np.stack([network.vector() for network in networks])])
    games = 30
    seeds = np.arange(games, dtype=np.uint64)
    colours = (np.arange(games) % 2).astype(np.uint8)
    for depth in (1, 2):
        kind = "wpc" if depth == 1 else "alphabeta"
        played = play_plan(kind, depth, 0.1, 40, rows, [None], np.zeros(games, np.int32), np.zeros(games, np.int32),
                           np.full(games, 2, np.int32), seeds, colours, layout=layout(shape))
        first, third = (build_player(f"{kind}:{depth},eps=0.1", weights=Evaluation(tuple(squares[k]),
                                                                                    patterns=networks[k]))
                        for k in (0, 2))
        from engine._players import play_match  # noqa: PLC0415

        assert np.array_equal(played, play_match(first, third, seeds, colours))
    with pytest.raises(ValueError, match="and the 2196 of a network"):
        play_plan("wpc", 1, 0.0, 40, squares, [None], np.zeros(1, np.int32), np.zeros(1, np.int32),
                  np.zeros(1, np.int32), seeds[:1], colours[:1], layout=layout(shape))
