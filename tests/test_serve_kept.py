"""The games the service keeps between requests are bounded (``Service.kept_games``,
``pulka serve --kept-games``): past the bound the least recently used is let go, never
one whose lock is held, and a game let go is read again from the store on its next
request and answered as before."""

from __future__ import annotations

import pytest

from tests.serving import account, bearer, client, sign_in
from web.service import Service

pytestmark = pytest.mark.sqlite_only

PLAYERS = ["Anna", "Boris", "Vera"]
DEAL = "6S pass pass | 6S | whist whist | 6 2 2"
BOUND = 3


def test_serving_more_games_than_the_bound_keeps_at_most_the_bound_and_answers_right(store_url: str) -> None:
    account(store_url, "dora", "director")
    with client(store_url, kept_games=BOUND) as c:
        service: Service = c.app.state.service  # type: ignore[attr-defined]
        director = sign_in(c, "dora")
        games = [f"g{i}" for i in range(2 * BOUND + 1)]
        versions = {}
        for i, game in enumerate(games):
            r = c.post("/api/games", json={"id": f"new-game-{i:04d}", "game": game, "players": PLAYERS,
                                           "pulya": 10}, headers=director)
            assert r.status_code == 201, r.text
            token = c.post(f"/api/games/{game}/tokens", json={"holder": "Masha"}, headers=director).json()["token"]
            r = c.post(f"/api/games/{game}/deal", json={"id": f"deal-{i:04d}", "version": 1, "line": DEAL},
                       headers=bearer(token))
            assert r.status_code == 201, r.text
            versions[game] = r.json()["state"]["version"]
            assert len(service._tables) <= BOUND
        assert list(service._tables) == games[-BOUND:]  # the most recently used
        # The first game, let go long ago, read again: the same table, and written to.
        first = c.get(f"/api/games/{games[0]}").json()
        assert first["version"] == versions[games[0]]
        assert first["settlement"]["sheet"]["Anna"]["pulya"] == 2
        assert games[0] in service._tables and len(service._tables) <= BOUND
        token = c.post(f"/api/games/{games[0]}/tokens", json={"holder": "Masha"}, headers=director).json()["token"]
        r = c.post(f"/api/games/{games[0]}/deal", json={"id": "deal-again-0001", "version": first["version"],
                                                        "line": "pass pass pass | 2 5 3"}, headers=bearer(token))
        assert r.status_code == 201, r.text
        assert r.json()["state"]["version"] == first["version"] + 4


def test_a_table_whose_lock_is_held_is_never_let_go(tmp_path: object) -> None:
    service = Service(str(tmp_path) + "/unused.db", threads=1, kept_games=2)
    try:
        busy = service.table("busy")
        with busy.lock:
            for i in range(5):
                service.table(f"other-{i}")
            assert service._tables.get("busy") is busy
            assert len(service._tables) == 2
        service.table("last")
        assert "busy" not in service._tables and len(service._tables) == 2
    finally:
        service.close()
