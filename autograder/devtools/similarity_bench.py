"""`make bench-similarity`: labelled classes (`similarity_class`: honest students and planted groups, each copy
disguised one way) compared as `autograder similarity` compares them; prints the time, and precision and
recall of the planted pairs at the default threshold and at other margins (how MARGIN was chosen), and the
recall per disguise; and Dolos's on the same classes (`dolos_side`), at its usual threshold and at the one
that gives it our precision. Figures, not assertions: the docs quote them ("Academic integrity: similarity").

    python -m autograder.devtools.similarity_bench [--n 500] [--seeds 3] [--first-seed 1] [--assignment NAME]
        [--no-dolos] [--one-style] [--rare 1]
"""

import argparse
import statistics
import tempfile
import time
from collections import defaultdict
from itertools import combinations
from pathlib import Path

from autograder.devtools import dolos_side, similarity_class
from autograder.similarity import evidence, read_class
from autograder.similarity.notebook_work import StudentWork
from autograder.similarity.program_form import answer_tokens

MARGINS = (-2.0, 0.0, 1.0, 2.0, 4.0)
# The disguises that leave every answer the program it was (`fixed` puts one right on purpose).
PROGRAM_KEPT = set(similarity_class.DISGUISES) - {"fixed"}


def run(assignment: str, n: int, seed: int, groups: int, rings: int, dolos: bool, one_style: bool = False,
        rare: int = 1) -> dict:
    labelled = similarity_class.plan(assignment, n, seed=seed, groups=groups, rings=rings, one_style=one_style,
                                     rare=rare)
    checked = similarity_class.semantics_checked(assignment, labelled)
    with tempfile.TemporaryDirectory() as folder:
        similarity_class.write(Path(folder), assignment, labelled, seed=seed)
        started = time.perf_counter()
        works, names, refused = read_class(Path(folder), assignment)
        read = time.perf_counter() - started
        comparison = evidence.compare(assignment, works, names, refused)
        seconds = time.perf_counter() - started
        scores = evidence.best_scores(works, names)[0]
        dolos_runs = {}  # "template" / "no template" -> (seconds, similarity of each pair)
        if dolos:
            files = Path(folder) / "dolos"
            files.mkdir()
            students, template = dolos_side.write_files(Path(folder), assignment, files)
            for how, given in (("template", template), ("no template", None)):
                started = time.perf_counter()
                similarity = dolos_side.run(students, given)
                dolos_runs[how] = (time.perf_counter() - started, similarity)
    by_pair = {frozenset((works[a].student, works[b].student)): s for (a, b), s in scores.items()}
    flagged = {frozenset((p.a, p.b)) for p in comparison.pairs}
    honest_top = max((s for pair, s in by_pair.items() if pair not in labelled.planted), default=0.0)
    at = {}
    for margin in MARGINS:
        line = evidence.threshold(len(works), margin)
        hits = {pair for pair, s in by_pair.items() if s >= line}
        at[margin] = (len(hits & labelled.planted), len(hits))
    as_programs = {w.student: _programs(w, names) for w in works}
    seen = {}  # disguise -> (answers a copier disguised so that are the other's as programs, answers compared)
    for pair in labelled.planted:
        a, b = (as_programs[name] for name in sorted(pair))
        for how in {name.split("-", 1)[1] for name in pair if name.startswith("c")} & PROGRAM_KEPT:
            same, total = seen.get(how, (0, 0))
            seen[how] = (same + sum(a[e] == b[e] for e in a.keys() & b.keys()), total + len(a.keys() & b.keys()))
    alike: dict[tuple, list[str]] = defaultdict(list)  # a whole notebook as programs -> who handed it in
    for name, answers in as_programs.items():
        alike[tuple(sorted(answers.items()))].append(name)
    twins = (sum(frozenset(pair) not in labelled.planted for held in alike.values() for pair in combinations(held, 2)),
             len(works) * (len(works) - 1) // 2 - len(labelled.planted))
    disguise = {}
    for pair in labelled.planted:
        for name in pair:
            if name.startswith("c"):
                how = name.split("-", 1)[1]
                found, total = disguise.get(how, (0, 0))
                disguise[how] = (found + (pair in flagged), total + 1)
    return {"seconds": seconds, "read": read, "flagged": flagged, "planted": labelled.planted, "at": at,
            "honest_top": honest_top - evidence.threshold(len(works), 0.0), "disguise": disguise,
            "threshold": comparison.threshold, "dolos": dolos_runs, "checked": checked, "seen": seen, "twins": twins}


def _programs(work: StudentWork, names: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """Each answer as the program `autograder similarity` compares (`program_form`), every disguise set aside."""
    return {e: tuple(t.text for t in answer_tokens(text, names)) for e, text in work.answers.items() if text.strip()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--first-seed", type=int, default=1, help="the first class's seed (held-out classes: 4 on)")
    parser.add_argument("--assignment", default="hidden_state_activation")
    parser.add_argument("--groups", type=int, default=20, help="planted pairs a class")
    parser.add_argument("--rings", type=int, default=5, help="planted groups of three a class")
    parser.add_argument("--rare", type=int, default=1,
                        help="planted pairs a class sharing two wrong answers of their own and nothing else")
    parser.add_argument("--no-dolos", action="store_true", help="leave Dolos out")
    parser.add_argument("--one-style", action="store_true",
                        help="each honest student keeps one style in every exercise (the harder class for precision)")
    args = parser.parse_args()
    runs = [run(args.assignment, args.n, seed, args.groups, args.rings, not args.no_dolos, args.one_style, args.rare)
            for seed in range(args.first_seed, args.first_seed + args.seeds)]
    print(f"{args.assignment}: {args.n} students a class{', one style each' if args.one_style else ''}, "
          f"{args.groups} planted pairs, {args.rings} rings of three and {args.rare} pairs sharing two wrong answers "
          f"of their own, {args.seeds} classes (seeds "
          f"{args.first_seed}..{args.first_seed + args.seeds - 1}); default margin {evidence.MARGIN:g} bits")
    for r in runs:
        hits = len(r["flagged"] & r["planted"])
        print(f"  {r['seconds']:.2f} s (reading {r['read']:.2f} s), threshold {r['threshold']:g} bits: "
              f"flagged {len(r['flagged'])}, planted {len(r['planted'])}, precision "
              f"{hits / max(1, len(r['flagged'])):.2f}, recall {hits / len(r['planted']):.2f}; the likeliest honest "
              f"pair at log2(pairs) + {r['honest_top']:.1f} bits")
    print("precision / recall of the planted pairs by margin (bits above log2 of the pairs), all classes:")
    for margin in MARGINS:
        hits = sum(r["at"][margin][0] for r in runs)
        flagged = sum(r["at"][margin][1] for r in runs)
        planted = sum(len(r["planted"]) for r in runs)
        print(f"  margin {margin:4g}: precision {hits / max(1, flagged):.2f}, recall {hits / planted:.2f} "
              f"({flagged - hits} honest pairs flagged)")
    broken = [line for r in runs for line in r["checked"][1]]
    print(f"disguised answers run against their originals on the graders' inputs: {sum(r['checked'][0] for r in runs)}"
          f", {len(broken)} behaving otherwise" + "".join(f"\n  {line}" for line in broken))
    print("recall by disguise (pairs with a copier so disguised), at the default margin:")
    totals: dict[str, tuple[int, int]] = {}
    for r in runs:
        for how, (found, total) in r["disguise"].items():
            before = totals.get(how, (0, 0))
            totals[how] = (before[0] + found, before[1] + total)
    for how in (*similarity_class.DISGUISES, "rare-wrong"):
        found, total = totals.get(how, (0, 0))
        print(f"  {how:13} {found}/{total}")
    print("answers a copier disguised, the same program as the other's once the disguises are set aside (what the "
          "normalisation sees through; `fixed` changes one answer on purpose):")
    for how in similarity_class.DISGUISES:
        if how in PROGRAM_KEPT:
            same, total = (sum(r["seen"].get(how, (0, 0))[i] for r in runs) for i in (0, 1))
            print(f"  {how:13} {same}/{total}")
    twins, pairs = (sum(r["twins"][i] for r in runs) for i in (0, 1))
    print(f"honest pairs handing in the same program in every exercise: {twins} of {pairs} (a copy disguised every "
          f"way is, as programs, one of these: below the threshold where its answers are ones many students write)")
    print(f"median time to compare a class: {statistics.median(r['seconds'] for r in runs):.2f} s")
    if not args.no_dolos:
        _print_dolos(runs)


def _print_dolos(runs: list[dict]) -> None:
    """Dolos beside us, class by class: at its usual threshold, and at the lowest that matches our precision."""
    print(f"Dolos on the same classes (each student's notebook code as one file), precision / recall: ours, then "
          f"Dolos at {dolos_side.USUAL_THRESHOLD:g} (its report's usual cut-off) and at the lowest threshold that "
          f"gives it our precision; with the release's code as its template, and without:")
    print("  (that threshold is picked knowing the planted pairs; from the second class on, Dolos also at the one "
          "picked on the class before, as an instructor would carry it over)")
    before: dict[str, float] = {}
    for r in runs:
        hits = len(r["flagged"] & r["planted"])
        ours = hits / max(1, len(r["flagged"]))
        print(f"  ours {ours:.2f} / {hits / len(r['planted']):.2f} in {r['seconds']:.1f} s")
        for how, (seconds, similarity) in r["dolos"].items():
            usual = dolos_side.score(similarity, r["planted"], dolos_side.USUAL_THRESHOLD)
            line = dolos_side.threshold_for(similarity, r["planted"], ours)
            matched = dolos_side.score(similarity, r["planted"], line)
            carried = ""
            if how in before:
                at = dolos_side.score(similarity, r["planted"], before[how])
                carried = f"; at the class before's {before[how]:.3f} {at.precision:.2f} / {at.recall:.2f}"
            before[how] = line
            print(f"    Dolos, {how:11}: at {dolos_side.USUAL_THRESHOLD:g} {usual.precision:.2f} / "
                  f"{usual.recall:.2f} ({usual.flagged} flagged); at {line:.3f} {matched.precision:.2f} / "
                  f"{matched.recall:.2f} ({matched.flagged} flagged){carried}; {seconds:.1f} s")


if __name__ == "__main__":
    main()
