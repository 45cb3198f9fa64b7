"""--redact-hosts judged in bulk (literal-led hints, a class map for MACs, one split() per scan): the edges of those
shortcuts give what the scans one match at a time gave (expected texts taken from the code before the change)."""

from __future__ import annotations

from aiperf_lab.triage.redact import Redactor

ENV = {"HOSTNAME": "gpunode17.acme-corp.example", "USER": "alice"}


def _hosts(text: str) -> str:
    return Redactor(environ=ENV, redact_hosts=True).text(text)


def test_a_bare_mac_beside_other_characters_is_judged_by_its_pattern():
    # a non-ASCII letter is a word character (kept); a block, "?" or a space is not (replaced); 12 digits are no MAC
    line = "mac 001B213A4F5C é001B213A4F5C █001B213A4F5C█ 001B213A4F5Cé ?001B213A4F5C? 123456789012 x001B213A4F5C"
    assert _hosts(line) == "mac mac-1 é001B213A4F5C █mac-1█ 001B213A4F5Cé ?mac-1? 123456789012 x001B213A4F5C"
    assert _hosts("ether 001b213a4f5c and 001b213a4f5c") == "ether mac-1 and 001b213a4f5c"


def test_dotted_quads_after_a_long_stretch_without_one_keep_their_verdicts():
    line = "a" * 5000 + " 10.0.0.7 version 9.1.0.70 ==1.2.3.4 10.1.1.1+cu 1234.5.6.7 é10.2.2.2"
    assert _hosts(line) == "a" * 5000 + " ip-1 version 9.1.0.70 ==1.2.3.4 10.1.1.1+cu 1234.5.6.7 é10.2.2.2"


def test_ipv6_after_a_long_stretch_and_colons_without_a_hex_digit():
    line = "x" * 5000 + " fe80::1%eth0 a::b ::1 1:2:3:4:5:6:7:8 host:2001:db8::1 " + ":*:" * 100
    assert _hosts(line) == "x" * 5000 + " ip-1 ip-2 ::1 ip-3 host:ip-4 " + ":*:" * 100


def test_macs_with_one_separator_and_aws_names_numbered_in_order():
    line = "00:1B:21:3A:4F:5C 00-1b-21-3a-4f-5c 00:1b-21:3a:4f:5c ip-10-0-0-1 ip-300-0-0-1 ip-10-0-0-1.ec2.internal ip-10-0-0-1"
    assert _hosts(line) == "mac-1 mac-1 00:1b-21:3a:4f:5c host-1 ip-300-0-0-1 host-2 host-1"
