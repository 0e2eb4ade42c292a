"""The progress bar's estimate of the time left, on a fake clock, and what the bar shows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ga.cli.progress import Estimate, Progress
from ga.evolution.loop import Stage
from ga.evolution.stages import GENERATIONS, REFINEMENT, SAMPLE_MOST, TOURNAMENT, StagePlan, per_game

# A two-stage run: generations that search (2 ms a game here), then a refinement of 1-ply games (0.1 ms).
TWO_STAGES = [StagePlan("GA", GENERATIONS, 1000), StagePlan("refinement", REFINEMENT, 20_000)]
# Their sampled costs on one thread: what the run's threads do to both is unknown until a stage has run,
# and the refinement's sample is 20% off its ratio to the GA's.
SAMPLED = {GENERATIONS: 1e-3, REFINEMENT: 0.06e-3}


def play_ga(estimate: Estimate, steps: int = 10, games: int = 100, seconds_a_step: float = 0.2) -> float:
    """Plays the GA's steps on the fake clock; returns the time it ended."""
    estimate.start("GA", 0.0)
    now = 0.0
    for _ in range(steps):
        now += seconds_a_step
        estimate.advance(games, now)
    estimate.end(now)
    return now


def test_after_the_first_stage_the_second_is_estimated_within_a_quarter_of_its_time() -> None:
    estimate = Estimate(TWO_STAGES, SAMPLED)
    assert estimate.left(0.0) is None  # nothing measured: nothing to tell
    ended = play_ga(estimate)
    truth = 20_000 * 0.1e-3  # 2 s
    # The GA ran at twice its sample's time a game, so the refinement is taken to: 20,000 x 0.06 ms x 2.
    assert estimate.left(ended) == pytest.approx(20_000 * 0.06e-3 * 2.0)
    assert abs(estimate.left(ended) - truth) <= 0.25 * truth
    # One rate for the whole job (the GA's games at 2 ms) would have said 40 s.
    assert 20_000 * ended / 1000 == pytest.approx(40.0)
    # Once the refinement has played, its own speed takes over.
    estimate.start("refinement", ended)
    estimate.advance(5000, ended + 0.5)
    assert estimate.left(ended + 0.5) == pytest.approx(15_000 * 0.5 / 5000)
    assert estimate.left(ended + 0.6) == pytest.approx(15_000 * 0.5 / 5000 - 0.1)  # counting down until the next
    estimate.advance(15_000, ended + 2.0)
    estimate.end(ended + 2.0)
    assert estimate.left(ended + 2.0) == 0


def test_the_current_stage_is_estimated_by_its_own_speed() -> None:
    estimate = Estimate(TWO_STAGES, SAMPLED)
    estimate.start("GA", 0.0)
    estimate.advance(250, 1.0)
    # 250 games in 1 s: 4 ms a game, the rest of the GA 3 s; the refinement's sample scaled by the same 4x.
    assert estimate.left(1.0) == pytest.approx(750 * 4e-3 + 20_000 * 0.06e-3 * 4.0)


def test_a_stage_of_a_kind_seen_before_runs_at_that_kind_s_speed_and_a_batch_counts_down() -> None:
    plan = [StagePlan("GA", GENERATIONS, 1000), StagePlan("final tournament", TOURNAMENT, 4000),
            StagePlan("restart 1/1", GENERATIONS, 1000), StagePlan("restart 1/1, final tournament", TOURNAMENT, 4000)]
    estimate = Estimate(plan, {GENERATIONS: 1e-3, TOURNAMENT: 0.25e-3})
    ended = play_ga(estimate)  # 2 ms a game: twice the sample
    tournament = 4000 * 0.25e-3 * 2.0  # 2 s, by the sample
    assert estimate.left(ended) == pytest.approx(tournament + 2.0 + tournament)
    estimate.start("final tournament", ended)  # one batch: nothing reported until it ends
    assert estimate.left(ended + 0.5) == pytest.approx(tournament - 0.5 + 2.0 + tournament)
    assert estimate.left(ended + 9.0) == pytest.approx(2.0 + tournament)  # late: never below nothing
    estimate.advance(4000, ended + 3.0)
    estimate.end(ended + 3.0)  # it took 3 s: 0.75 ms a game, and so will the restart's
    assert estimate.left(ended + 3.0) == pytest.approx(2.0 + 3.0)


def test_without_samples_the_whole_job_s_speed_stands_in_and_skipped_stages_drop_out() -> None:
    plan = [StagePlan("GA", GENERATIONS, 1000), StagePlan("restart 1/2", GENERATIONS, 1000),
            StagePlan("restart 2/2", GENERATIONS, 1000), StagePlan("refinement", REFINEMENT, 1000)]
    estimate = Estimate(plan)
    ended = play_ga(estimate)
    assert estimate.left(ended) == pytest.approx(3 * 2.0)
    estimate.start("refinement", ended)  # the restarts had finished before: skipped
    assert estimate.left(ended) == pytest.approx(2.0)
    estimate.end(ended)
    estimate.start("not planned", ended)  # a stage nobody foresaw adds nothing it cannot know
    assert estimate.left(ended) == 0


def test_a_sample_grows_until_it_plays_long_enough_and_the_faster_of_two_plays_counts() -> None:
    played: list[int] = []

    def play(games: int) -> tuple[float, int]:  # 10 us a game; the first play of a size pays 5 ms for being cold
        played.append(games)
        return games * 1e-5 + (0.005 if played.count(games) == 1 else 0.0), games

    assert per_game(play) == pytest.approx(1e-5)
    assert played == [64, 64, 256, 256, 1024, 1024, 4096, 4096]  # 4,096 games play 0.041 s, past 0.02 s
    played.clear()
    assert per_game(lambda games: (played.append(games), (games * 1e-3, games))[1]) == pytest.approx(1e-3)
    assert played == [64, 64]  # a slow kind's first sample is long enough
    played.clear()
    assert per_game(lambda games: (played.append(games), (games * 1e-7, games))[1]) == pytest.approx(1e-7)
    assert played[-1] == SAMPLE_MOST  # a very fast kind stops at the most games a sample holds
    played.clear()
    assert per_game(lambda games: (played.append(games), (min(games, 300) * 1e-6, min(games, 300)))[1]) == \
        pytest.approx(1e-6)  # a kind of 300 games: all of them, timed as 300
    assert played == [64, 64, 256, 256, 1024, 1024]


def test_a_job_of_one_kind_of_stage_samples_nothing(tmp_path: Path) -> None:
    def costs() -> dict[str, float]:
        raise AssertionError("sampled")

    with Progress(quiet=False) as progress:
        progress.begin(tmp_path, [StagePlan("GA", GENERATIONS, 100)], costs)
    with Progress(quiet=True) as progress:
        progress.begin(tmp_path, TWO_STAGES, costs)


def test_the_bar_says_where_the_results_go_shows_one_rate_and_ends_at_100(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    times = iter(float(t) for t in range(1000))
    with Progress(quiet=False, clock=lambda: next(times)) as progress:
        progress.begin(tmp_path / "run", [StagePlan("GA", GENERATIONS, 300), StagePlan("refinement", REFINEMENT, 80)],
                       lambda: {GENERATIONS: 1e-3, REFINEMENT: 1e-3})
        bar = progress(Stage("GA", 0, 3))
        for generation in range(3):
            bar.update({"games": 100, "generation": generation, "win_rate": 0.5, "best_fitness": 0.6})
        bar.close()
        bar = progress(Stage("refinement", 0, 2))
        for _ in range(2):
            bar.update({"games": 40, "panel_mean": 0.4, "panel_best": 0.5})
        bar.close()
        summary = progress.finish()
    assert summary.endswith(", 380 games") and "GA " in summary and "refinement " in summary
    err = capsys.readouterr().err
    assert err.splitlines()[0] == f"results go to {tmp_path / 'run'}"
    screens = [screen.strip() for screen in re.split(r"[\r\n]", err) if screen.strip()][1:]
    assert screens[-1].startswith("refinement 2/2 100%|") and screens[-1].endswith(", done")
    assert any(screen.startswith("GA 3/3 ") for screen in screens)  # generations done, as everywhere
    assert not any(screen.startswith("GA 4/") for screen in screens)
    for screen in screens:
        assert len(re.findall(r"games/s|game/s", screen)) <= 1, screen  # one rate, the stage's
        assert "kgame" not in screen


def test_a_stage_that_outlasts_its_estimate_never_steps_the_bar_back_nor_shows_100_before_the_end(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clock = [0.0]
    with Progress(quiet=False, clock=lambda: clock[0]) as progress:
        progress.begin(tmp_path / "run", [StagePlan("GA", GENERATIONS, 100), StagePlan("final tournament",
                                                                                       TOURNAMENT, 1000)],
                       lambda: {GENERATIONS: 1e-3, TOURNAMENT: 1e-3})
        bar = progress(Stage("GA", 0, 1))
        clock[0] = 1.0
        bar.update({"games": 100, "generation": 0, "win_rate": 0.5, "best_fitness": 0.6})
        bar.close()
        shown = []
        bar = progress(Stage("final tournament", 0, 2))
        clock[0] = 2.0
        bar.update({"games": 100})  # 900 games left at 1 s a hundred: 9 s
        shown.append(progress.bar.n)
        clock[0] = 30.0  # the countdown ran out long before this
        progress._draw()
        shown.append(progress.bar.n)
        clock[0] = 31.0
        bar.update({"games": 100})  # the report: 800 games still to play
        shown.append(progress.bar.n)
        bar.close()
        progress.finish()
    assert shown == sorted(shown) and max(shown) < 100
    screens = [screen.strip() for screen in re.split(r"[\r\n]", capsys.readouterr().err) if screen.strip()]
    assert screens[-1].startswith("final tournament") and " 100%|" in screens[-1] and screens[-1].endswith(", done")
    assert not any(" 100%|" in screen for screen in screens[:-1])
