"""``alchemy-table check-hardware``: try each configured device and report what works.

Each device is opened as the configuration says and given something to do: the camera one frame, the
LEDs a test pattern over the map (status green, cauldrons blue, player boards amber, the Cramé bar full),
the display a screen, the buttons their pins (presses during ``--hold`` are printed). Exit 0 when all
work, 1 when one does not. On a Raspberry Pi, a strip or display that ``auto`` had to simulate (driver
missing, SPI or I2C off) is a FAIL with the reason; off a Pi, simulated devices are what ``auto`` means.
"""

from __future__ import annotations

import time

from assistant.config import add_arguments, from_args
from hardware.exc import DeviceUnavailable, HardwareError

DEVICES = ("camera", "leds", "display", "buttons")


def register(sub) -> None:
    p = sub.add_parser("check-hardware", help="try each configured device (camera, LEDs, display, buttons)",
                       description=__doc__.split("\n\n")[1].replace("\n", " "))
    p.add_argument("--only", metavar="DEVICES", default=",".join(DEVICES),
                   help=f"comma-separated subset of {','.join(DEVICES)}")
    p.add_argument("--hold", type=float, default=2.0, metavar="SECONDS",
                   help="keep the test pattern and screen up (and listen to the buttons) this long (default 2)")
    add_arguments(p)
    p.set_defaults(run=run)


def run(args) -> int:
    only = [d.strip() for d in args.only.split(",") if d.strip()]
    unknown = [d for d in only if d not in DEVICES]
    if unknown:
        raise ValueError(f"--only: unknown device {unknown[0]!r} (devices: {', '.join(DEVICES)})")
    config = from_args(args)
    failed = 0
    for device in only:
        try:
            detail = CHECKS[device](config, max(0.0, args.hold))
            status = "ok"
        except (HardwareError, OSError, ValueError) as e:
            detail = " ".join(str(e).split()) or type(e).__name__
            status = "FAIL"
            failed += 1
        print(f"{device:<8} {status:<5} {detail}", flush=True)
    return 1 if failed else 0


def check_camera(config, hold: float) -> str:
    reports: list[str] = []
    with config.open_camera(report=reports.append, max_failures=1) as source:
        item = source.read()
        if item is None:
            raise OSError(reports[-1] if reports else f"{source.name}: no frame")
        _, frame = item
        height, width = frame.shape[:2]
        return f"{source.name}: a {width}x{height} frame"


def check_leds(config, hold: float) -> str:
    from hardware.leds.patterns import AMBER, BLUE, GREEN, RED, BarGraph, Lights, Solid

    led_map = config.led_map()
    with config.open_strip() as strip:
        if strip.fallback:
            raise DeviceUnavailable(f"led.backend auto simulated the strip on this Pi: {strip.fallback}")
        lights = Lights(strip, led_map)
        for name, indices in led_map.groups.items():
            if name == "status":
                lights.play(name, Solid(GREEN))
            elif name.startswith("cauldron"):
                lights.play(name, Solid(BLUE))
            elif name.startswith("player"):
                lights.play(name, Solid(AMBER))
            else:
                lights.play(name, BarGraph(len(indices), len(indices), (GREEN, RED)))
        lights.render()
        time.sleep(hold)
        where = f"GPIO{config['led.pin']}" if strip.backend != "simulated" else "simulated"
        return (f"{strip.backend} strip of {strip.count} pixels ({where}), {len(led_map.groups)} groups, "
                f"brightness limit {strip.brightness:g}")


def check_display(config, hold: float) -> str:
    from hardware.display.screens import Message

    with config.open_display() as display:
        if display.fallback:
            raise DeviceUnavailable(f"display.backend auto used the dummy display on this Pi: {display.fallback}")
        display.show(Message("check-hardware", f"{display.model} display via {display.backend}: ok", tone="ok"))
        time.sleep(hold)
        width, height = display.size
        saved = f", saved to {display.png}" if display.png else ""
        return f"{display.model} via {display.backend}, {width}x{height}{saved}"


def check_buttons(config, hold: float) -> str:
    with config.open_buttons(listen=False) as buttons:
        if buttons.backend == "gpio":
            pins = config.button_pins()
            wired = ", ".join(f"{name} GPIO{pin}" for name, pin in vars(pins).items() if pin is not None)
            deadline = time.monotonic() + hold
            pressed = []
            while (left := deadline - time.monotonic()) > 0:
                command = buttons.wait(left)
                if command is not None:
                    pressed.append(command.value)
            return f"gpio: {wired}" + (f"; pressed: {', '.join(pressed)}" if pressed else "")
        if buttons.backend == "keyboard":
            from hardware.buttons import KEY_HELP
            return f"keyboard (simulator): {KEY_HELP}"
        return "none configured"


CHECKS = {"camera": check_camera, "leds": check_leds, "display": check_display, "buttons": check_buttons}
