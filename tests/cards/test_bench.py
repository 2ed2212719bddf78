"""``bench cards --shake``: a third of each layout's frames shaken or out of focus, as the table sets' are, and
their cards still read (the board located on the view held still, as ``eval`` locates a blurred frame)."""


def test_bench_cards_shakes_a_third_of_its_frames_and_reads_their_cards(cli):
    code, out, err = cli("bench", "cards", "--frames", "6", "--seed", "3", "--decks", "plain", "--shake")
    assert code == 0, err
    cells = next(line for line in out.splitlines() if line.startswith("| shaken |")).split("|")
    views, right = float(cells[2]), float(cells[3])
    assert views >= 5 and right >= 80, out
