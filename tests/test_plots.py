"""Tests for ga.analysis.plots on a small synthetic run directory."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.image
import numpy as np
import pandas as pd
import pytest
from matplotlib.backend_bases import RendererBase
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

import ga.analysis.plots
from ga.rundir.layout import RunDirError
from ga.analysis.plots import (
    DPI,
    FIGURE_SIZES,
    RUN_FIGURES,
    draw_weights,
    experiment_name,
    opponent_summaries,
    plot_compare,
    plot_run,
    plot_weights,
    rolling_win_rate,
    rolling_window,
    run_label,
)
from ga.analysis.stats import MatchSummary
from ga.weights import format_weights

OPPONENTS = ("random", "nhand:2")
RUN_PLOTS = {
    "win_rate": "win_rate",
    "win_rate_by_opponent": "win_rate_by_opponent",
    "opponent_bars": "opponent_bars",
    "fitness": "fitness",
    "best_weights": "weights",
    "mean_weights": "weights",
}
MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-", "svg": b"<?xml"}


def write_run(
    run_dir: Path,
    name: str = "baseline",
    n_generations: int = 40,
    seed: int = 0,
) -> Path:
    """Writes a synthetic run directory shaped like the one ga.evolve produces."""
    rng = np.random.default_rng(seed)
    run_dir.mkdir(parents=True)
    game_rows = []
    generation_rows = []
    for generation in range(n_generations):
        strength = 0.3 + 0.5 * generation / n_generations
        per_opponent: dict[str, list[float]] = {}
        # "nhand:2" is only played on even generations, so its column has NaNs.
        played = OPPONENTS if generation % 2 == 0 else OPPONENTS[:1]
        for individual in range(4):
            for opponent in played:
                for colour in ("black", "white"):
                    roll = rng.random()
                    disc_diff = int(rng.integers(2, 40)) * (1 if roll < strength else -1)
                    if abs(roll - strength) < 0.03:
                        disc_diff = 0
                    game_rows.append((generation, individual, opponent, colour,
                                      int(rng.integers(1 << 30)), disc_diff))
                    per_opponent.setdefault(opponent, []).append(
                        1.0 if disc_diff > 0 else 0.5 if disc_diff == 0 else 0.0)
        outcomes = [row[-1] for row in game_rows if row[0] == generation]
        wins = sum(diff > 0 for diff in outcomes)
        draws = sum(diff == 0 for diff in outcomes)
        fitness = rng.normal(strength, 0.1, size=4)
        generation_rows.append(
            {
                "generation": generation,
                "games": len(outcomes),
                "wins": wins,
                "draws": draws,
                "losses": len(outcomes) - wins - draws,
                "win_rate": (wins + draws / 2) / len(outcomes),
                **{f"win_rate_vs_{opponent}": np.mean(per_opponent[opponent])
                   if opponent in per_opponent else np.nan for opponent in OPPONENTS},
                "fitness_min": fitness.min(),
                "fitness_mean": fitness.mean(),
                "fitness_max": fitness.max(),
                "fitness_std": fitness.std(),
                "best_fitness": fitness.max() + 0.05,
                "diversity": 1.0 / (1 + generation),
                "evaluate_s": 0.5,
                "total_s": 0.6,
            }
        )
    pd.DataFrame(generation_rows).to_csv(run_dir / "generations.csv", index=False)
    pd.DataFrame(
        game_rows, columns=["generation", "individual", "opponent", "colour", "seed", "disc_diff"]
    ).to_csv(run_dir / "games.csv", index=False)
    best = rng.normal(size=64)
    (run_dir / "best_weights.csv").write_text(format_weights(best, "csv"))
    (run_dir / "mean_weights.csv").write_text(format_weights(best / 2, "csv"))
    (run_dir / "config.toml").write_text(f'[experiment]\nname = "{name}"\nseed = {seed}\n')
    return run_dir


def expected_pixels(kind: str) -> tuple[int, int]:
    """Returns the (height, width) in pixels of a PNG of the given figure kind."""
    width, height = FIGURE_SIZES[kind]
    return round(height * DPI), round(width * DPI)


def assert_png(path: Path, kind: str) -> None:
    """Asserts that ``path`` is a PNG of the expected size that is not blank."""
    assert path.read_bytes().startswith(MAGIC["png"])
    pixels = matplotlib.image.imread(path)
    height, width = expected_pixels(kind)
    assert pixels.shape[1] == width and height <= pixels.shape[0] <= height + 2 * DPI  # and a legend's height
    assert pixels[..., :3].std() > 0.05, f"{path.name} looks blank"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_run(tmp_path_factory.mktemp("runs") / "run-001")


@pytest.fixture(scope="module")
def run_plots(run_dir: Path) -> list[Path]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no missing-file warnings for a complete run
        return plot_run(run_dir)


# ---------------------------------------------------------------- summaries


def test_rolling_window() -> None:
    assert [rolling_window(n) for n in (0, 1, 19, 20, 39, 40, 1000)] == [1, 1, 1, 1, 1, 2, 50]


def test_rolling_win_rate_pools_games_for_the_band() -> None:
    generations = pd.DataFrame(
        {
            "generation": [0, 1, 2],
            "games": [10, 10, 10],
            "wins": [5, 7, 10],
            "draws": [2, 0, 0],
            "losses": [3, 3, 0],
            "win_rate": [0.6, 0.7, 1.0],
        }
    )
    curve = rolling_win_rate(generations, window=2)
    assert curve["rolling"].tolist() == pytest.approx([0.6, 0.65, 0.85])
    # Generation 1 pools 13/20 (6 + 7): Wilson (0.4329, 0.8188) by hand.
    assert (curve.loc[1, "low"], curve.loc[1, "high"]) == pytest.approx((0.4329, 0.8188), abs=5e-5)
    # Generation 2 pools 17/20: the band reaches 1 only when every game is won.
    assert curve.loc[2, "high"] < 1.0
    assert rolling_win_rate(generations.iloc[[2]], window=1).loc[0, "high"] == 1.0


def test_opponent_summaries() -> None:
    games = pd.DataFrame(
        {"opponent": ["random", "random", "nhand:2", "random", "nhand:2"], "disc_diff": [10, 0, -4, -2, 6]}
    )
    assert opponent_summaries(games) == [
        MatchSummary("nhand:2", 2, 1, 0, 1),
        MatchSummary("random", 3, 1, 1, 1),
    ]


def test_run_label_uses_the_experiment_name(run_dir: Path, tmp_path: Path) -> None:
    assert experiment_name(run_dir) == "baseline"
    assert run_label(run_dir) == "baseline (run-001)"
    bare = tmp_path / "bare"
    bare.mkdir()
    assert run_label(bare) == "bare"
    (bare / "config.toml").write_text("not toml [")
    assert experiment_name(bare) == ""


# ---------------------------------------------------------------- plot_run


def test_plot_run_writes_every_figure(run_dir: Path, run_plots: list[Path]) -> None:
    assert [path.name for path in run_plots] == [f"{stem}.png" for stem in RUN_PLOTS]
    for path, kind in zip(run_plots, RUN_PLOTS.values()):
        assert path.parent == run_dir / "plots"
        assert_png(path, kind)


def test_figures_are_drawn_unhinted_and_saved_fast_and_leave_the_process_settings_alone(
        run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hinting: list[str] = []
    savefig = Figure.savefig

    def recording(self: Figure, *args: Any, **kwargs: Any) -> None:
        hinting.append(matplotlib.rcParams["text.hinting"])
        savefig(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", recording)
    before = dict(matplotlib.rcParams)
    plot_run(run_dir, out_dir=tmp_path, figures=["win_rate", "best_weights"])
    assert hinting == ["no_hinting", "no_hinting"]
    assert dict(matplotlib.rcParams) == before
    for path in (tmp_path / "win_rate.png", tmp_path / "best_weights.png"):
        data = path.read_bytes()
        image_data = data.index(b"IDAT") + 4
        assert data[image_data + 1] >> 6 == 0  # the zlib header's level: 0 for zlib's fastest (1)


@pytest.mark.parametrize("release", [True, False])
def test_plot_run_frees_each_figure_when_saved_unless_told_not_to(
        release: bool, run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cleared: list[int] = []
    savefig, clear = Figure.savefig, Figure.clear

    def saving(self: Figure, *args: Any, **kwargs: Any) -> None:
        savefig(self, *args, **kwargs)
        self.saved_by_test = True  # type: ignore[attr-defined]

    def clearing(self: Figure, *args: Any, **kwargs: Any) -> None:
        if getattr(self, "saved_by_test", False):  # (a new figure clears itself too)
            cleared.append(1)
        clear(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", saving)
    monkeypatch.setattr(Figure, "clear", clearing)
    paths = plot_run(run_dir, out_dir=tmp_path, release=release)
    assert len(cleared) == (len(paths) if release else 0)
    for path in paths:
        assert_png(path, RUN_PLOTS[path.stem])


def test_plot_run_draws_the_named_figures_only(run_dir: Path, tmp_path: Path) -> None:
    assert tuple(RUN_PLOTS) == RUN_FIGURES  # the default draws them all, in this order
    paths = plot_run(run_dir, out_dir=tmp_path, figures=["mean_weights", "fitness", "win_rate"])
    assert paths == [tmp_path / "win_rate.png", tmp_path / "fitness.png", tmp_path / "mean_weights.png"]
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(path.name for path in paths)
    for path in paths:
        assert_png(path, RUN_PLOTS[path.stem])
    assert plot_run(run_dir, out_dir=tmp_path / "one", figures="opponent_bars") == [
        tmp_path / "one" / "opponent_bars.png"]
    assert plot_run(run_dir, out_dir=tmp_path / "none", figures=[]) == []


def test_plot_run_refuses_an_unknown_figure(run_dir: Path, tmp_path: Path) -> None:
    message = r"unknown figure 'weights'; use some of win_rate, .*, mean_weights"
    with pytest.raises(ValueError, match=message):
        plot_run(run_dir, out_dir=tmp_path / "out", figures=["fitness", "weights"])
    assert not (tmp_path / "out").exists()  # refused before drawing anything


def test_plot_run_warns_only_about_the_named_figures(tmp_path: Path) -> None:
    run = write_run(tmp_path / "partial", n_generations=5)
    for name in ("games.csv", "best_weights.csv"):
        (run / name).unlink()
    with pytest.warns(UserWarning, match="skipping best_weights") as caught:
        paths = plot_run(run, out_dir=tmp_path / "out", figures=["best_weights", "mean_weights"])
    assert len(caught) == 1
    assert paths == [tmp_path / "out" / "mean_weights.png"]


def test_every_text_fits_in_its_figure_without_overlap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fixed margins: nothing clipped at an edge, no label over another, even for long run labels."""
    long_name = "seed2021-no-crossover-tournament-5-long-xx"  # 42 characters
    run = write_run(tmp_path / long_name, name="long-experiment-name")
    phases = np.concatenate([np.linspace(-3, 3, 64), np.linspace(250, -250, 64)])
    (run / "mean_weights.csv").write_text(format_weights(phases, "csv"))  # 128 weights, wide labels
    checked: list[str] = []
    image = ga.analysis.plots._image  # every figure becomes an image here, a run's and compare's

    def check_then_draw(figure: Figure, fmt: str, **options: Any) -> bytes:
        name = figure.axes[0].get_title() or figure.get_suptitle()
        assert_texts_fit(figure, name)
        checked.append(name.split(":")[0])
        return image(figure, fmt, **options)

    monkeypatch.setattr(ga.analysis.plots, "_image", check_then_draw)
    plot_run(run)
    plot_compare([run, write_run(tmp_path / "run-002", name="other")], tmp_path / "compare.png")
    assert len(checked) == len(RUN_FIGURES) + 1
    assert checked[-1] == "Rolling win rate with pooled 95% Wilson bands"


def test_legends_sit_above_the_data_win_rates_stay_in_0_1_and_generations_are_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Win-rate axes ran to 1.2 to make room for a legend that could still cover half the plot; a run of 3
    # generations had ticks at 0.5, 1.5.
    short = write_run(tmp_path / "short", n_generations=3)
    figures: dict[str, Figure] = {}
    image = ga.analysis.plots._image

    def keep_then_draw(figure: Figure, fmt: str, **options: Any) -> bytes:
        name = (figure.axes[0].get_title() or figure.get_suptitle()).split(":")[0]
        assert_legends_outside_the_data(figure, name)
        figures[name] = figure
        return image(figure, fmt, release=False)

    monkeypatch.setattr(ga.analysis.plots, "_image", keep_then_draw)
    plot_run(short)
    plot_compare([short, write_run(tmp_path / "long", n_generations=40)], tmp_path / "compare.png")
    rates = [figures[name].axes[0] for name in ("Win rate per generation", "Win rate by opponent (rolling mean, 1 gen)",
                                                "Rolling win rate with pooled 95% Wilson bands")]
    for axes in rates:
        assert axes.get_ylim() == (-0.02, 1.02)
        assert axes.get_legend() is not None
    for name in ("Win rate per generation", "Fitness and diversity"):
        ticks = figures[name].axes[-1].get_xticks()
        shown = [tick for tick in ticks if 0 <= tick <= 2]
        assert shown == [0, 1, 2], (name, list(ticks))


def assert_legends_outside_the_data(figure: Figure, name: str) -> None:
    """Asserts that each legend lies above its axes (it covers no data) and below the figure's top."""
    renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw(renderer)
    for axes in figure.axes:
        legend = axes.get_legend()
        if legend is None:
            continue
        box, data = legend.get_window_extent(renderer), axes.get_window_extent(renderer)
        assert box.y0 >= data.y1 - 1, (name, box, data)
        assert box.y1 <= figure.bbox.height, name
        for title in (axes.title, figure._suptitle):
            if title is not None and title.get_text():
                assert not box.overlaps(title.get_window_extent(renderer)), (name, title.get_text())


def assert_texts_fit(figure: Figure, name: str) -> None:
    """Asserts that every text drawn on ``figure`` lies inside it and overlaps no other text."""
    drawn: list[Text] = []
    draw = Text.draw

    def record(text: Text, renderer: RendererBase) -> None:
        if text.get_visible() and text.get_text():
            drawn.append(text)
        draw(text, renderer)

    renderer = FigureCanvasAgg(figure).get_renderer()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Text, "draw", record)  # only what is drawn: not the ticks out of view
        figure.draw(renderer)
    boxes = [(text.get_text(), text.get_window_extent(renderer)) for text in drawn]
    width, height = figure.bbox.width, figure.bbox.height
    for label, box in boxes:
        assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= width and box.y1 <= height, (name, label)
    for index, (label, box) in enumerate(boxes):
        for other, other_box in boxes[index + 1 :]:
            assert not box.overlaps(other_box), (name, label, other)


def test_heatmap_puts_rank_one_on_top_and_files_on_top() -> None:
    figure = Figure()
    weights = np.arange(64, dtype=np.float64) - 20
    (axes,) = draw_weights(figure, weights, "layout")
    image = axes.get_images()[0]
    assert image.get_array()[0, 0] == weights[0]  # a1 at the top-left
    assert image.get_array()[7, 7] == weights[63]  # h8 at the bottom-right
    assert [label.get_text() for label in axes.get_xticklabels()] == list("abcdefgh")
    assert [label.get_text() for label in axes.get_yticklabels()] == [str(rank) for rank in range(1, 9)]
    assert axes.xaxis.get_ticks_position() == "top"
    assert axes.yaxis_inverted()  # row 0 (rank 1) drawn at the top
    assert image.norm.vmin == -image.norm.vmax == -43.0  # symmetric around 0
    cell_texts = [text.get_text() for text in axes.texts]
    assert cell_texts[:2] == ["-20", "-19"] and len(cell_texts) == 64  # whole numbers, without decimals


def test_phase_heatmaps_side_by_side(tmp_path: Path) -> None:
    weights = np.concatenate([np.linspace(-1, 1, 64), np.linspace(2, -2, 64)])
    (path,) = plot_weights(weights, tmp_path / "phases.png", "two phases")
    assert_png(path, "weights_phases")
    figure = Figure()
    before, after = draw_weights(figure, weights)
    assert before.get_images()[0].get_array()[0, 0] == -1.0
    assert after.get_images()[0].get_array()[0, 0] == 2.0
    # One colour scale for both phases, so equal colours mean equal weights.
    assert before.get_images()[0].norm is after.get_images()[0].norm
    assert [axes.get_title() for axes in (before, after)] == [
        "before the switch move", "after the switch move"]


def test_plot_run_on_a_partial_run(tmp_path: Path) -> None:
    """A run in progress: no games.csv, no weights yet, no per-opponent columns."""
    run = write_run(tmp_path / "partial", n_generations=5)
    for name in ("games.csv", "best_weights.csv", "mean_weights.csv"):
        (run / name).unlink()
    generations = pd.read_csv(run / "generations.csv")
    opponent_columns = [column for column in generations if column.startswith("win_rate_vs_")]
    generations.drop(columns=opponent_columns).to_csv(run / "generations.csv", index=False)
    with pytest.warns(UserWarning) as caught:
        paths = plot_run(run, out_dir=tmp_path / "out")
    assert [path.name for path in paths] == ["win_rate.png", "win_rate_by_opponent.png", "fitness.png"]
    assert sorted(str(warning.message).split("/")[-1] for warning in caught) == [
        "best_weights.csv does not exist; skipping best_weights",
        "games.csv does not exist; skipping opponent_bars",
        "mean_weights.csv does not exist; skipping mean_weights",
    ]
    assert_png(paths[1], "win_rate_by_opponent")


def test_missing_generations_csv_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match="generations.csv' does not exist"):
        plot_run(tmp_path)
    with pytest.raises(RunDirError, match="generations.csv"):
        plot_compare([tmp_path], tmp_path / "compare.png")


def test_malformed_generations_csv(tmp_path: Path) -> None:
    (tmp_path / "generations.csv").write_text("")
    with pytest.raises(RunDirError, match="generations.csv' is empty"):
        plot_run(tmp_path)
    (tmp_path / "generations.csv").write_text("generation,win_rate\n0,0.5\n")
    with pytest.raises(RunDirError, match="lacks column"):
        plot_run(tmp_path)
    (tmp_path / "generations.csv").write_text("generation,games,wins,draws,losses,win_rate\n")
    with pytest.raises(RunDirError, match="no generations yet"):
        plot_run(tmp_path)


def test_unknown_format(run_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown plot format 'jpg'"):
        plot_run(run_dir, out_dir=tmp_path, fmt="jpg")
    assert not list(tmp_path.iterdir())


# ---------------------------------------------------------------- plot_compare / plot_weights


def test_plot_compare_overlays_runs(run_dir: Path, tmp_path: Path) -> None:
    other = write_run(tmp_path / "run-002", name="no-crossover", n_generations=25, seed=1)
    (path,) = plot_compare([run_dir, other], tmp_path / "compare" / "win_rates.png")
    assert path == tmp_path / "compare" / "win_rates.png"
    assert_png(path, "compare")


@pytest.mark.parametrize("fmt", ["svg", "pdf"])
def test_vector_formats_have_the_right_magic(run_dir: Path, tmp_path: Path, fmt: str) -> None:
    (path,) = plot_compare([run_dir], tmp_path / "compare.png", fmt)
    assert path == tmp_path / f"compare.{fmt}"
    head = path.read_bytes()[:400]
    assert head.startswith(MAGIC[fmt])
    if fmt == "svg":
        assert b"<svg" in head


@pytest.mark.shows("compare --window")
def test_compare_smooths_each_run_over_its_own_window_or_the_one_given(tmp_path: Path) -> None:
    # One window for all, the shortest run's: beside a run of 10 generations a long one was drawn as noise.
    from click.testing import CliRunner

    from ga.analysis.plots import draw_compare
    from ga.cli import cli

    short, long = write_run(tmp_path / "short", n_generations=10), write_run(tmp_path / "long", n_generations=200)

    def curves(figure: Figure) -> dict[str, np.ndarray]:
        return {line.get_label(): line.get_ydata() for line in figure.axes[0].get_lines() if line.get_label()[0] != "_"}

    drawn = curves(draw_compare([short, long]))
    assert list(drawn) == ["baseline (short), vs fixed opponents, mean of 1 gen",
                           "baseline (long), vs fixed opponents, mean of 10 gen"]
    for (label, values), run, window in zip(drawn.items(), (short, long), (1, 10)):
        expected = rolling_win_rate(pd.read_csv(run / "generations.csv"), window)["rolling"]
        assert list(values) == pytest.approx(list(expected)), label
    given = curves(draw_compare([short, long], window=4))
    assert [label.rsplit(", ", 1)[1] for label in given] == ["mean of 4 gen"] * 2
    assert list(given.values())[1] == pytest.approx(
        list(rolling_win_rate(pd.read_csv(long / "generations.csv"), 4)["rolling"]))
    out = tmp_path / "compare.svg"
    result = CliRunner().invoke(cli, ["compare", str(short), str(long), "--window", "4", "-o", str(out)])
    assert result.exit_code == 0, result.output
    svg = out.read_text(encoding="utf-8")
    assert svg.count("opponents, mean of 4 gen") == 2 and "each curve a rolling mean of 4 generations" in svg
    bad = CliRunner().invoke(cli, ["compare", str(short), "--window", "0", "-o", str(tmp_path / "x.png")])
    assert bad.exit_code == 2 and not (tmp_path / "x.png").exists()


def test_plot_compare_needs_runs(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least one"):
        plot_compare([], tmp_path / "compare.png")


def test_every_heatmap_reads_on_one_colour_bar_of_shares_of_its_largest_weight() -> None:
    # The GA's table (largest 3) and the refined one (largest 1) were drawn on colour bars of their own units.
    bars = []
    for largest in (3.02, 1.18):
        figure = Figure()
        (axes,) = draw_weights(figure, np.linspace(-largest, largest / 2, 64))
        colorbar = figure.axes[-1]
        labels = [label.get_text() for label in colorbar.get_yticklabels()]
        # The same tick labels at the same shares of each table's largest weight: one scale.
        positions = [tick / largest for tick in colorbar.get_yticks()]
        bars.append((labels, positions))
        assert colorbar.get_ylabel() == f"weight / largest weight ({largest:.2f})"
    assert bars[0] == bars[1]
    assert bars[0][0] == ["−1", "−0.5", "0", "0.5", "1"] or bars[0][0] == ["-1", "-0.5", "0", "0.5", "1"]
    assert bars[0][1] == pytest.approx([-1, -0.5, 0, 0.5, 1])


def test_weights_heatmap_of_a_flat_table(tmp_path: Path) -> None:
    (axes,) = draw_weights(Figure(), np.zeros(64))
    norm = axes.get_images()[0].norm
    assert (norm.vmin, norm.vmax) == (-1.0, 1.0)  # a usable scale even when all weights are 0
    with pytest.raises(ValueError, match="64 or 128"):
        plot_weights(np.zeros(63), tmp_path / "bad.png")
    with pytest.raises(ValueError, match="unknown plot format"):
        plot_weights(np.zeros(64), tmp_path / "weights.jpg")
    assert not list(tmp_path.iterdir())


def test_plot_run_without_games_csv_by_config_skips_the_opponent_bars_without_a_warning(tmp_path: Path) -> None:
    run = write_run(tmp_path / "nogames", n_generations=5)
    (run / "games.csv").unlink()
    (run / "config.toml").write_text("[output]\ngames_csv = false\n", encoding="utf-8")
    for figures in (None, ["opponent_bars", "fitness"]):  # the helper asks for its share by name
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            paths = plot_run(run, out_dir=tmp_path / "out", figures=figures)
        assert caught == []  # the run's own config rules the figure out: not a warning
        assert "opponent_bars.png" not in [path.name for path in paths]
        assert "fitness.png" in [path.name for path in paths]
