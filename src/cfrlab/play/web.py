"""Human play in the browser (``cfrlab serve --vs A``): a FastAPI app and a plain HTML/JS page.

Every visitor gets a session (cookie ``cfrlab_session``) holding its own ``HumanTable``: its own
agent instance(s), deals and score. The server checks every action against that session's
state and refuses an illegal one with HTTP 400 without applying it.

API (JSON; every answer is ``HumanTable.view()`` of the caller's session, with its ``trainer``
field in trainer mode: the current hand's decisions rated and the summary of the finished hands):

* ``GET  /api/state``  the current view; starts a session (and its first hand) when needed
* ``POST /api/action`` ``{"action": "r", "hand_number": 3}`` the human's ACPC action (f, c, r, r<N>);
  400 when it is not legal, not the caller's turn, or ``hand_number`` is not the current hand
* ``POST /api/next``   deal the next hand (400 while the current hand is still being played)
* ``POST /api/reset``  a new match for this session (score back to zero)

A request body over ``MAX_BODY`` bytes (64 KiB) is refused with HTTP 413 and never reaches the
app (one declared up to 1 MiB is read and dropped first, so the client gets the answer rather
than a reset connection); a malformed one gets 422 with what is wrong, never the body echoed back.
"""

from __future__ import annotations

import secrets
import socket
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path

from cfrlab.errors import CfrlabError
from cfrlab.games.agent import Agent
from cfrlab.games.gamedef import GameDef
from cfrlab.play.session import HumanTable
from cfrlab.play.trainer import Trainer

try:
    from fastapi import FastAPI, HTTPException, Request, Response
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import FileResponse, JSONResponse
    from fastapi.staticfiles import StaticFiles
    from pydantic import BaseModel, Field
except ImportError as e:  # pragma: no cover - the web extra is not installed
    raise CfrlabError("browser play needs FastAPI and uvicorn: pip install 'cfrlab[web]'") from e

STATIC_DIR = Path(__file__).parent / "static"
COOKIE = "cfrlab_session"
MAX_BODY = 64 * 1024  # bytes: the API's bodies are a few dozen
DRAIN_FACTOR = 16  # a refused body up to 16 x MAX_BODY is read and dropped so the 413 arrives
AgentFactory = Callable[[int | None], Agent]


class ActionIn(BaseModel):
    action: str = Field(..., min_length=1, max_length=32)
    hand_number: int | None = None


class _Session:
    def __init__(self, table: HumanTable):
        self.table = table
        self.lock = threading.Lock()


class SessionStore:
    """Sessions by id, least recently used dropped beyond ``max_sessions``."""

    def __init__(self, game: GameDef, agent_factory: AgentFactory | Sequence[AgentFactory], seed: int | None,
                 max_sessions: int, trainer: Trainer | None = None):
        self.game = game
        seats = game.num_players - 1
        factories = list(agent_factory) if isinstance(agent_factory, (list, tuple)) else [agent_factory] * seats
        if len(factories) != seats:
            raise CfrlabError(f"{game.name or 'the game'} needs {seats} agent(s) beside you, got {len(factories)}")
        self.factories = factories
        self.seed = seed
        self.max_sessions = max_sessions
        self.trainer = trainer  # shared read-only: its values are computed once
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._lock = threading.Lock()
        self._created = 0

    def new(self) -> tuple[str, _Session]:
        with self._lock:
            k = self._created
            self._created += 1
        agent_seed = None if self.seed is None else self.seed + 1000 * k
        agents = [make(None if agent_seed is None else agent_seed + i) for i, make in enumerate(self.factories)]
        table = HumanTable(self.game, agents, seed=self.seed, agent_seed=agent_seed, trainer=self.trainer)
        table.start_hand()
        sid = secrets.token_urlsafe(18)
        session = _Session(table)
        with self._lock:
            self._sessions[sid] = session
            while len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)
        return sid, session

    def get(self, sid: str | None) -> _Session | None:
        if not sid:
            return None
        with self._lock:
            session = self._sessions.get(sid)
            if session is not None:
                self._sessions.move_to_end(sid)
            return session

    def __len__(self) -> int:
        return len(self._sessions)


def create_app(game: GameDef, agent_factory: AgentFactory | Sequence[AgentFactory], *, seed: int | None = None,
               max_sessions: int = 1000, title: str | None = None, trainer: Trainer | None = None) -> FastAPI:
    """The web app. ``agent_factory(seed)`` makes one fresh agent (called per session and seat;
    a list gives one factory per seat beside the human, e.g. two different bots in kuhn-3p);
    ``seed`` fixes every session's deals (None: each session gets random deals); ``trainer``
    (``cfrlab.play.trainer.Trainer``) rates every decision of every session (the view's
    ``trainer`` field)."""
    if seed is not None and seed < 0:
        raise CfrlabError("the deal seed must be a non-negative integer")
    app = FastAPI(title=title or "cfrlab play", docs_url=None, redoc_url=None, openapi_url=None)
    if trainer is not None and trainer.game.to_text() != game.to_text():
        raise CfrlabError(f"the trainer's strategy is for {trainer.game.name or 'another game'}, "
                          f"not for {game.name or 'this game'}")
    store = SessionStore(game, agent_factory, seed, max_sessions, trainer)
    app.state.sessions = store
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.add_middleware(BodyLimit, limit=MAX_BODY)

    @app.exception_handler(RequestValidationError)
    def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        """422 saying which field is wrong and why, without the request's content."""
        parts = []
        for err in exc.errors()[:5]:
            where = ".".join(str(x) for x in err.get("loc", ()) if x != "body") or "body"
            parts.append(f"{where}: {err.get('msg', 'invalid')}")
        return JSONResponse({"detail": "invalid request: " + "; ".join(parts)}, status_code=422)

    def existing(request: Request) -> _Session:
        session = store.get(request.cookies.get(COOKIE))
        if session is None:
            raise HTTPException(400, "no session: load the page (GET /api/state) first")
        return session

    def refuse(message: str) -> HTTPException:
        return HTTPException(400, message)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", media_type="text/html")

    @app.get("/api/state")
    def get_state(request: Request, response: Response) -> dict:
        session = store.get(request.cookies.get(COOKIE))
        if session is None:
            sid, session = store.new()
            response.set_cookie(COOKIE, sid, httponly=True, samesite="strict")
        with session.lock:
            return session.table.view()

    @app.post("/api/action")
    def post_action(body: ActionIn, request: Request) -> dict:
        session = existing(request)
        with session.lock:
            table = session.table
            if body.hand_number is not None and body.hand_number != table.hand_number:
                raise refuse(f"hand {body.hand_number} is not the current hand ({table.hand_number})")
            try:
                table.act(body.action, strict=True)
            except CfrlabError as e:
                raise refuse(str(e)) from None
            return table.view()

    @app.post("/api/next")
    def post_next(request: Request) -> dict:
        session = existing(request)
        with session.lock:
            try:
                session.table.start_hand()
            except CfrlabError as e:
                raise refuse(str(e)) from None
            return session.table.view()

    @app.post("/api/reset")
    def post_reset(request: Request, response: Response) -> dict:
        sid, session = store.new()
        response.set_cookie(COOKIE, sid, httponly=True, samesite="strict")
        with session.lock:
            return session.table.view()

    return app


class BodyLimit:
    """ASGI middleware: a request whose body is over ``limit`` bytes gets 413, whether it says
    so in Content-Length or streams (chunked) past the limit; the app never sees it."""

    def __init__(self, app, limit: int = MAX_BODY):
        self.app = app
        self.limit = limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.limit
                except ValueError:
                    too_big = True
                if too_big:
                    await self._drain(receive, value)
                    await self._refuse(send)
                    return
        seen = 0
        started = refused = False

        async def counted_receive():
            nonlocal seen, refused
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit and not started:
                    refused = True
                    await self._refuse(send)
                    return {"type": "http.disconnect"}  # the app stops reading; its answer is dropped
            return message

        async def tracked_send(message):
            nonlocal started
            if refused:
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except Exception:
            if not refused:
                raise

    async def _drain(self, receive, declared: bytes) -> None:
        """Read and drop a declared body of up to ``DRAIN_FACTOR`` times the limit before
        answering: closing a socket with unread data resets it, and the client would see a
        connection error instead of the 413. Anything bigger is refused unread."""
        try:
            if int(declared) > DRAIN_FACTOR * self.limit:
                return
        except ValueError:
            return
        while True:
            message = await receive()
            if message["type"] != "http.request" or not message.get("more_body", False):
                return

    async def _refuse(self, send) -> None:
        body = f'{{"detail": "request body too large (the limit is {self.limit // 1024} KiB)"}}'.encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


def bind_socket(host: str = "127.0.0.1", port: int = 8000) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: any free port); CfrlabError with one line
    when the address is bad or the port is in use."""
    if not 0 <= port <= 65535:
        raise CfrlabError(f"port {port} is not 0..65535")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        family, _, _, _, addr = infos[0]
        sock = socket.socket(family, socket.SOCK_STREAM)
    except OSError as e:
        raise CfrlabError(f"cannot serve on {host}:{port}: {e.strerror or e}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(128)
    except OSError as e:
        sock.close()
        raise CfrlabError(f"cannot serve on {host}:{port}: {e.strerror or e}") from None
    return sock


def serve(app: FastAPI, host: str = "127.0.0.1", port: int = 8000,
          sock: socket.socket | None = None) -> None:  # pragma: no cover - CLI
    """Run the app with uvicorn until Ctrl-C, on ``sock`` (from ``bind_socket``) or ``host:port``."""
    import uvicorn

    if sock is None:
        sock = bind_socket(host, port)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
