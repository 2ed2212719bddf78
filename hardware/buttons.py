"""Buttons: gpiozero ``Button`` and ``RotaryEncoder`` on configured pins, or keys in a terminal, turned into
assistant commands (next, back, confirm, and the game select wheel).

Commands queue up until the main loop ``poll()``s them, and listeners can also be told at once:

>>> from gpiozero.pins.mock import MockFactory
>>> factory = MockFactory()
>>> with GpioButtons(ButtonPins(), pin_factory=factory) as buttons:
...     factory.pin(5).drive_low(); factory.pin(5).drive_high()   # press and release "next"
...     buttons.poll()
[<Command.NEXT: 'next'>]
"""

from __future__ import annotations

import os
import queue
import select
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from hardware import platform
from hardware.exc import BadSetting, DeviceUnavailable

BACKENDS = ("auto", "gpio", "keyboard", "none")
RELOCK_HOLD_S = 3.0


class Command(StrEnum):
    NEXT = "next"
    BACK = "back"
    CONFIRM = "confirm"
    GAME_NEXT = "game-next"
    GAME_PREVIOUS = "game-previous"
    RELOCK = "relock"  # "next" held down: let the camera settle its exposure again (the room's light changed)


@dataclass(frozen=True)
class ButtonPins:
    """BCM GPIO numbers. Buttons connect the pin to ground (internal pull-ups); ``None`` leaves one out."""

    next: int | None = 5
    back: int | None = 6
    confirm: int | None = 13
    encoder_a: int | None = 17
    encoder_b: int | None = 27

    def __post_init__(self):
        used = [p for p in (self.next, self.back, self.confirm, self.encoder_a, self.encoder_b) if p is not None]
        for pin in used:
            if not isinstance(pin, int) or not 0 <= pin <= 27:
                raise BadSetting(f"button pin {pin!r} is not a header GPIO (0..27)")
        if len(set(used)) != len(used):
            raise BadSetting("two buttons share a GPIO pin")
        if (self.encoder_a is None) != (self.encoder_b is None):
            raise BadSetting("the game select encoder needs both pins (encoder_a and encoder_b)")


class Buttons:
    """Base of every backend: a queue of commands and optional listeners."""

    backend = "none"

    def __init__(self):
        self._queue: queue.SimpleQueue[Command] = queue.SimpleQueue()
        self._listeners: list[Callable[[Command], None]] = []
        self._closed = False

    def on_command(self, listener: Callable[[Command], None]) -> None:
        self._listeners.append(listener)

    def emit(self, command: Command) -> None:
        self._queue.put(command)
        for listener in self._listeners:
            listener(command)

    def poll(self) -> list[Command]:
        """Every command since the last poll, oldest first."""
        out = []
        while True:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                return out

    def wait(self, timeout: float | None = None) -> Command | None:
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._release()

    def _release(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class GpioButtons(Buttons):
    """Push buttons for next / back / confirm and a rotary encoder for the game: clockwise is the next game."""

    backend = "gpio"

    def __init__(self, pins: ButtonPins, *, bounce_s: float | None = 0.02, pin_factory=None,
                 hold_s: float = RELOCK_HOLD_S):
        super().__init__()
        from gpiozero import Button, GPIOZeroError, RotaryEncoder
        self.pins = pins
        self._devices = []
        where = ""
        try:
            for command, pin in ((Command.NEXT, pins.next), (Command.BACK, pins.back),
                                 (Command.CONFIRM, pins.confirm)):
                if pin is None:
                    continue
                where = f"GPIO{pin} ({command})"
                button = Button(pin, pull_up=True, bounce_time=bounce_s, hold_time=hold_s,
                                pin_factory=pin_factory)
                button.when_pressed = self._emitter(command)
                if command is Command.NEXT:
                    button.when_held = self._emitter(Command.RELOCK)
                self._devices.append(button)
            if pins.encoder_a is not None:
                where = f"GPIO{pins.encoder_a}/GPIO{pins.encoder_b} (game wheel)"
                wheel = RotaryEncoder(pins.encoder_a, pins.encoder_b, max_steps=0, pin_factory=pin_factory)
                wheel.when_rotated_clockwise = self._emitter(Command.GAME_NEXT)
                wheel.when_rotated_counter_clockwise = self._emitter(Command.GAME_PREVIOUS)
                self._devices.append(wheel)
        except (GPIOZeroError, OSError, RuntimeError, *_driver_errors()) as e:
            self._release()
            text = " ".join(str(e).strip("'\"").split()) or type(e).__name__
            busy = ("; another program or a dtoverlay holds the pin (pinctrl get shows who)"
                    if "busy" in text.lower() else "")
            raise DeviceUnavailable(f"buttons: {where}: {text}{busy}") from e

    def _emitter(self, command: Command) -> Callable[[], None]:
        return lambda: self.emit(command)

    def _release(self) -> None:
        for device in self._devices:
            device.close()
        self._devices = []


def _driver_errors() -> tuple[type[BaseException], ...]:
    """The pin driver's own exception types, which gpiozero lets through: lgpio's ``error`` ('GPIO busy',
    'can not open gpiochip'), the default driver on Bookworm. Only a driver already loaded is looked at."""
    lgpio = sys.modules.get("lgpio")
    error = getattr(lgpio, "error", None)
    return (error,) if isinstance(error, type) and issubclass(error, BaseException) else ()


# Keys in the simulator: letters, and the arrow keys as a terminal sends them.
KEYS = {
    "n": Command.NEXT, "\x1b[C": Command.NEXT,
    "b": Command.BACK, "\x1b[D": Command.BACK, "\x7f": Command.BACK,
    "c": Command.CONFIRM, "\r": Command.CONFIRM, "\n": Command.CONFIRM, " ": Command.CONFIRM,
    "g": Command.GAME_NEXT, "\x1b[B": Command.GAME_NEXT,
    "G": Command.GAME_PREVIOUS, "\x1b[A": Command.GAME_PREVIOUS,
    "r": Command.RELOCK,
}
KEY_HELP = "n/→ next, b/← back, c/Enter/Space confirm, g/↓ next game, G/↑ previous game, r relock the camera"


class KeyboardButtons(Buttons):
    """Keys as buttons: ``feed`` text, or ``listen`` to a terminal (or any file descriptor) in a thread."""

    backend = "keyboard"

    def __init__(self):
        super().__init__()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._restore = None

    def feed(self, keys: str) -> list[Command]:
        """Turn keys into commands (unknown keys are ignored); returns the commands emitted."""
        out = []
        i = 0
        while i < len(keys):
            sequence = keys[i:i + 3] if keys.startswith("\x1b[", i) else keys[i]
            command = KEYS.get(sequence)
            if command is not None:
                self.emit(command)
                out.append(command)
            i += len(sequence)
        return out

    def listen(self, stream=None) -> None:
        """Read keys from ``stream`` (default stdin) until it ends or the buttons close; a terminal is put in
        cbreak mode (keys arrive without Enter) and restored on close."""
        stream = sys.stdin if stream is None else stream
        fd = stream if isinstance(stream, int) else stream.fileno()
        if os.isatty(fd):
            import termios
            import tty
            saved = termios.tcgetattr(fd)
            tty.setcbreak(fd)
            self._restore = lambda: termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        self._thread = threading.Thread(target=self._read_loop, args=(fd,), name="keyboard-buttons", daemon=True)
        self._thread.start()

    def _read_loop(self, fd: int) -> None:
        pending = ""
        while not self._stop.is_set():
            ready, _, _ = select.select([fd], [], [], 0.1)
            if not ready:
                continue
            data = os.read(fd, 64)
            if not data:
                break
            pending += data.decode("utf-8", "replace")
            # Hold back an escape sequence cut in the middle by the read.
            cut = pending.rfind("\x1b")
            if cut != -1 and len(pending) - cut < 3:
                pending, rest = pending[:cut], pending[cut:]
            else:
                rest = ""
            self.feed(pending)
            pending = rest

    def join(self, timeout: float | None = None) -> None:
        """Wait for the listening thread to finish (its stream ended)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def _release(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(1.0)
        if self._restore is not None:
            self._restore()
            self._restore = None


def resolve_backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise BadSetting(f"buttons backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    if backend != "auto":
        return backend
    return "gpio" if platform.is_raspberry_pi() else "keyboard"


def open_buttons(backend: str = "auto", pins: ButtonPins | None = None, *, bounce_s: float | None = 0.02,
                 pin_factory=None, listen: bool = True) -> Buttons:
    """The configured buttons. The keyboard listens to stdin only when it is a terminal."""
    backend = resolve_backend(backend)
    if backend == "gpio":
        return GpioButtons(pins or ButtonPins(), bounce_s=bounce_s, pin_factory=pin_factory)
    if backend == "keyboard":
        keyboard = KeyboardButtons()
        if listen and sys.stdin is not None and sys.stdin.isatty():
            keyboard.listen(sys.stdin)
        return keyboard
    return Buttons()
