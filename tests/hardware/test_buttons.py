"""Buttons: gpiozero mock pins and keyboard keys turned into assistant commands."""

from __future__ import annotations

import os

import pytest
from gpiozero.pins.mock import MockFactory

from hardware import platform
from hardware.buttons import ButtonPins, Command, GpioButtons, KeyboardButtons, open_buttons
from hardware.exc import BadSetting, DeviceUnavailable


def press(factory, pin):
    factory.pin(pin).drive_low()  # the button shorts the pulled-up pin to ground
    factory.pin(pin).drive_high()


def turn(factory, a, b, clockwise):
    """One detent of a quadrature encoder: A leads B clockwise, B leads A the other way."""
    first, second = (a, b) if clockwise else (b, a)
    for pin, level in ((first, 0), (second, 0), (first, 1), (second, 1)):
        factory.pin(pin).drive_low() if level == 0 else factory.pin(pin).drive_high()


@pytest.fixture
def factory():
    return MockFactory()


def test_buttons_on_their_configured_pins_give_commands(factory):
    heard = []
    with GpioButtons(ButtonPins(next=5, back=6, confirm=13), pin_factory=factory) as buttons:
        buttons.on_command(heard.append)
        press(factory, 5)
        press(factory, 13)
        press(factory, 6)
        factory.pin(5).drive_low()  # held down: one command, not one per poll
        assert buttons.poll() == [Command.NEXT, Command.CONFIRM, Command.BACK, Command.NEXT]
        assert buttons.poll() == []
        factory.pin(5).drive_high()
    assert heard == [Command.NEXT, Command.CONFIRM, Command.BACK, Command.NEXT]


def test_game_wheel_turns_select_the_next_and_previous_game(factory):
    with GpioButtons(ButtonPins(encoder_a=17, encoder_b=27), pin_factory=factory) as buttons:
        turn(factory, 17, 27, clockwise=True)
        turn(factory, 17, 27, clockwise=True)
        turn(factory, 17, 27, clockwise=False)
        assert buttons.poll() == [Command.GAME_NEXT, Command.GAME_NEXT, Command.GAME_PREVIOUS]


def test_pins_are_released_on_close(factory):
    pins = ButtonPins()
    GpioButtons(pins, pin_factory=factory).close()
    with GpioButtons(pins, pin_factory=factory) as buttons:  # would fail if the pins were still held
        press(factory, 6)
        assert buttons.poll() == [Command.BACK]


def test_pin_in_use_is_a_device_error(factory):
    with GpioButtons(ButtonPins(), pin_factory=factory), pytest.raises(DeviceUnavailable, match="buttons:"):
        GpioButtons(ButtonPins(), pin_factory=factory)


def test_bad_pins_are_refused():
    with pytest.raises(BadSetting, match="share"):
        ButtonPins(next=5, back=5)
    with pytest.raises(BadSetting, match="not a header GPIO"):
        ButtonPins(next=40)
    with pytest.raises(BadSetting, match="both pins"):
        ButtonPins(encoder_a=17, encoder_b=None)


def test_keyboard_keys_and_arrows():
    keys = KeyboardButtons()
    assert keys.feed("nb\x1b[Cc\rgG\x1b[A\x1b[Bx") == [
        Command.NEXT, Command.BACK, Command.NEXT, Command.CONFIRM, Command.CONFIRM, Command.GAME_NEXT,
        Command.GAME_PREVIOUS, Command.GAME_PREVIOUS, Command.GAME_NEXT]
    assert len(keys.poll()) == 9


def test_keyboard_listens_to_a_stream_in_a_thread():
    read, write = os.pipe()
    keys = KeyboardButtons()
    keys.listen(read)
    os.write(write, b"n\x1b[")  # an arrow key cut in two by the pipe
    os.write(write, b"Dg")
    os.close(write)
    keys.join(5)
    keys.close()
    os.close(read)
    assert keys.poll() == [Command.NEXT, Command.BACK, Command.GAME_NEXT]


def test_auto_is_gpio_on_a_pi_and_keyboard_elsewhere(monkeypatch, factory):
    monkeypatch.setattr(platform, "board_model", lambda *a: "")
    with open_buttons("auto", listen=False) as buttons:
        assert isinstance(buttons, KeyboardButtons)
    monkeypatch.setattr(platform, "board_model", lambda *a: "Raspberry Pi 4 Model B Rev 1.4")
    with open_buttons("auto", ButtonPins(), pin_factory=factory) as buttons:
        assert buttons.backend == "gpio"
    with open_buttons("none") as buttons:
        assert buttons.poll() == []
