"""Rule sets on the command line: the arguments ``--rule KEY=VALUE`` and ``--rules-file``,
and ``pulka rules [NAME]``, which lists the presets or every parameter of one."""

from __future__ import annotations

import json
from typing import Any

import click

from cli.common import UserError, emit
from ledger.vocabulary import language
from ledger.vocabulary.events import TOO_DEEP
from ledger.vocabulary.refusal import UnreadableInput
from ledger.vocabulary.rules import MEANING, PARAMETERS, PRESETS, RuleSet, RuleSetError, find_preset, rule_set_to_dict

_ = language._  # every text a person reads, in the language in effect
N_ = language.N_

RULES_FILE = N_("a [rules] table of rule parameters, e.g. raspasy_exit = 7 (see `pulka rules sochi`)")


def parse_overrides(items: tuple[str, ...], rules_file: str | None) -> dict[str, Any]:
    # The table's words are the command side's (and import its folds): only a command
    # given --rule needs them, not `pulka rules`.
    from ledger.words.table import parse_value

    overrides: dict[str, Any] = {}
    if rules_file is not None:
        overrides.update(rules_file_overrides(rules_file))
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise UserError(_("--rule takes KEY=VALUE, not {item}; keys: {keys}").format(
                item=repr(item), keys=", ".join(PARAMETERS)))
        try:
            overrides[key.strip()] = parse_value(value.strip())
        except UnreadableInput as exc:
            raise UserError(_("refused: {reason}").format(reason=exc)) from None
    return overrides


def rules_file_overrides(path: str) -> dict[str, Any]:
    """The overrides of a rules file: its ``[rules]`` table (or, without one, the whole
    file) of KEY = VALUE; a file that is not TOML, or whose rules are not a table, is
    refused."""
    import tomllib  # here: only --rules-file reads TOML

    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as exc:
        raise UserError(_("cannot read {path}: {reason}").format(path=path, reason=exc.strerror or exc)) from None
    except UnicodeDecodeError as exc:
        raise UserError(_("refused: {path} is not a TOML file: byte {byte} at {offset} is not UTF-8 text; allowed: "
                          "{allowed}").format(path=path, byte=f"0x{exc.object[exc.start]:02x}", offset=exc.start,
                                              allowed=_(RULES_FILE))) from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(_("refused: {path} is not valid TOML: {reason}; allowed: {allowed}").format(
            path=path, reason=exc, allowed=_(RULES_FILE))) from None
    except RecursionError:
        raise UserError(_("refused: {path}: {reason}; allowed: {allowed}").format(
            path=path, reason=_(TOO_DEEP), allowed=_(RULES_FILE))) from None
    rules = data.get("rules", data)
    if not isinstance(rules, dict):
        raise UserError(_("refused: in {path}, `rules` is {type}, not a table of KEY = VALUE; allowed: {allowed}").format(
            path=path, type=type(rules).__name__, allowed=_(RULES_FILE)))
    return rules


def describe_rules(rules: RuleSet) -> str:
    values = rule_set_to_dict(rules)
    lines = [_("convention {convention}").format(convention=rules.convention)]
    width = max(len(k) for k in PARAMETERS)
    for key in PARAMETERS:
        value = values[key]
        shown = ", ".join(map(str, value)) if isinstance(value, list) else json.dumps(value)
        lines.append(f"  {key:<{width}}  {shown:<12}  {_(MEANING[key])}")
    return "\n".join(lines) + "\n"


@click.command()
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True)
def rules(name: str | None, as_json: bool) -> None:
    """List the presets, or show every parameter of one."""
    if name is None:
        if as_json:
            emit(sorted(PRESETS))
        else:
            for preset_name in PRESETS:
                click.echo(preset_name)
        return
    try:
        preset = find_preset(name)
    except RuleSetError as exc:
        raise UserError(str(exc)) from None
    if as_json:
        emit(rule_set_to_dict(preset))
    else:
        click.echo(describe_rules(preset), nl=False)

