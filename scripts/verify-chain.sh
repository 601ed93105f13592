#!/usr/bin/env bash
# Independent verifier of a firm's Governance Ledger chain (format: docs/ledger-format.md).
#
# Needs only curl, jq, openssl and python3 (standard library). It fetches every record of the firm that
# owns API_KEY, the published signing key and the signing-key history (/.well-known/signing-keys), then
# recomputes and checks, for every record: recordHash (SHA-256 of the RFC 8785 canonical payload), chainHash,
# the link to the previous record, the ECDSA P-256 signature (with openssl), the key it was signed with
# (listed in the history, its window [validFrom, validUntil) holding the record's timestamp, not revoked by
# then), sequence numbers (from 1, gapless, strictly increasing), timestamps (ISO 8601 UTC with milliseconds,
# non-decreasing) and the firm id; and the history itself: fingerprints, and each key's endorsement by the
# previous key (openssl).
# It prints one line per failure and a summary, and exits 0 when everything verifies, 1 on any failure,
# 2 when it could not run (usage, network, HTTP error).
#
#   BASE_URL=https://ledger.example.com API_KEY=gls_... scripts/verify-chain.sh [options]
#
# Options:
#   --save DIR        also write what was verified to DIR: records.json (all records, chain order, in
#                     the shape of a list page), signing-key.json (the published key) and
#                     signing-keys.json (the key history)
#   --offline DIR     verify DIR/records.json against DIR/signing-key.json and, when present,
#                     DIR/signing-keys.json; no network, no API key
#   --immutable DIR   also compare every record with its immutable copy DIR/<12-digit sequence>-<id>.json
#                     (a download of ledger/<firmId>/ from the immutable bucket): byte for byte
#   --canonicalize    print the RFC 8785 canonical form of the JSON on stdin and exit (a helper for the
#                     manual steps of docs/ledger-format.md)
#   -h, --help        this text
#
# Environment:
#   BASE_URL             service address, e.g. http://localhost:3000 (not with --offline)
#   API_KEY              the firm's API key, sent as X-Service-Key (not with --offline)
#   PAGE_SIZE            records per request, 1..100 (default 100)
#   TRUSTED_PUBLIC_KEYS  without a key history only: further base64 SPKI keys to accept besides the
#                        published one (whitespace separated)
#   KEY_FINGERPRINT      the signing key's fingerprint (hex SHA-256 of its DER) as obtained out of band;
#                        when set, a published key with another fingerprint fails the run
#   CURL_OPTS            extra curl options, e.g. "--cacert ca.pem" (word-split)
#
# Numbers: the canonicalizer below implements RFC 8785 in full for the JSON that records hold (strings,
# integers, floats, booleans, null, objects, arrays), floats included (ECMAScript Number-to-String,
# using Python's shortest round-trip repr). Integers beyond 2^53 are not exactly representable in the
# service's own JSON numbers and never occur in records.

set -euo pipefail

die() {
  echo "verify-chain: $*" >&2
  exit 2
}

usage() {
  sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'
}

# ---------------------------------------------------------------------------------------------------------
# The checks that need no signature tool, in Python's standard library only.
read -r -d '' PY_CODE <<'PY' || true
import base64, hashlib, json, math, os, re, sys

# --- RFC 8785 JSON Canonicalization Scheme ---------------------------------------------------------------

def jcs_number(x):
    """ECMAScript Number::toString, as RFC 8785 section 3.2.2.3 requires."""
    if isinstance(x, bool):
        raise TypeError("bool is not a number")
    if isinstance(x, int):
        if abs(x) < 10**21:
            return str(x)
        x = float(x)
    if math.isnan(x) or math.isinf(x):
        raise ValueError("NaN and Infinity are not JSON")
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    # repr() gives the shortest digits that round-trip, as ECMAScript does.
    mantissa, _, exp = repr(abs(x)).partition("e")
    whole, _, frac = mantissa.partition(".")
    allDigits = whole + frac
    digits = allDigits.lstrip("0")
    # n: position of the decimal point relative to the first significant digit (value = 0.digits * 10^n)
    n = len(whole) + int(exp or 0) - (len(allDigits) - len(digits))
    digits = digits.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * -n + digits
    else:
        e = n - 1
        out = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + out

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}

def jcs_string(s):
    out = ['"']
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        elif 0xD800 <= ord(ch) <= 0xDFFF:
            raise ValueError("lone surrogate in string")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)

def jcs(value):
    """RFC 8785 canonical JSON text of a parsed JSON value (as json.loads returns it)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return jcs_number(value)
    if isinstance(value, str):
        return jcs_string(value)
    if isinstance(value, list):
        return "[" + ",".join(jcs(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: k.encode("utf-16-be"))  # UTF-16 code unit order
        return "{" + ",".join(jcs_string(k) + ":" + jcs(value[k]) for k in keys) + "}"
    raise TypeError("not a JSON value: %r" % (value,))

# --- the record format ------------------------------------------------------------------------------------

PAYLOAD_FIELDS = ["id", "firmId", "sequenceNumber", "eventType", "actorId", "actorName", "actorFcaRef",
                  "documentHash", "documentMetadata", "timestamp", "reviewJobId"]
RECORD_FIELDS = PAYLOAD_FIELDS + ["previousHash", "recordHash", "chainHash", "signature", "publicKey"]
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")

def sha256_hex(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

def canonicalize_stdin():
    sys.stdout.write(jcs(json.load(sys.stdin)))

def instant(text):
    """An ISO 8601 instant as a timezone-aware datetime, or None when it is not one."""
    from datetime import datetime
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (AttributeError, TypeError, ValueError):
        return None

def key_problem(history, public_key, timestamp):
    """The service's rule (shared/ledger/key-history.ts keyProblemAt): None when the key may sign then."""
    entry = next((k for k in history["keys"] if k["publicKey"] == public_key), None)
    if entry is None:
        return "PUBLIC_KEY_NOT_TRUSTED", "publicKey is not in the signing-key history"
    at = instant(timestamp)
    if at is None:
        return "KEY_NOT_VALID_AT_TIMESTAMP", "the timestamp is not an instant"
    if entry["revokedFrom"] is not None and at >= instant(entry["revokedFrom"]):
        return "KEY_REVOKED", "key %s is revoked from %s" % (entry["fingerprint"][:16], entry["revokedFrom"])
    if at < instant(entry["validFrom"]) or (entry["validUntil"] is not None and at >= instant(entry["validUntil"])):
        return "KEY_NOT_VALID_AT_TIMESTAMP", "key %s signs from %s until %s" % (
            entry["fingerprint"][:16], entry["validFrom"], entry["validUntil"] or "now")
    return None

def main(work, source, key_file, immutable_dir, history_file):
    failures = 0

    def fail(record, code, detail=""):
        nonlocal failures
        failures += 1
        where = "seq=%s id=%s" % (record.get("sequenceNumber"), record.get("id")) if record is not None else "chain"
        print(("FAIL %s %s %s" % (where, code, detail)).rstrip(), flush=True)

    # Records: one list page per file (online), or a saved records.json (offline).
    records, total = [], None
    for path in source:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        page = doc["data"] if isinstance(doc, dict) else doc
        records.extend(page)
        if isinstance(doc, dict) and isinstance(doc.get("pagination"), dict):
            total = doc["pagination"].get("total")

    with open(key_file, encoding="utf-8") as f:
        published = json.load(f)["publicKey"]
    history = None
    if history_file:
        with open(history_file, encoding="utf-8") as f:
            history = json.load(f)
        trusted = [k["publicKey"] for k in history["keys"]]
    else:
        trusted = [published] + os.environ.get("TRUSTED_PUBLIC_KEYS", "").split()
    key_ids = {}
    os.makedirs(os.path.join(work, "keys"), exist_ok=True)
    os.makedirs(os.path.join(work, "sig"), exist_ok=True)

    def key_id(spki_b64):
        """Writes a trusted key's DER once; returns the file stem the signature check uses."""
        if spki_b64 not in key_ids:
            der = base64.b64decode(spki_b64, validate=True)
            stem = hashlib.sha256(der).hexdigest()
            with open(os.path.join(work, "keys", stem + ".der"), "wb") as f:
                f.write(der)
            key_ids[spki_b64] = stem
        return key_ids[spki_b64]

    published_id = key_id(published)
    manifest = open(os.path.join(work, "signatures.tsv"), "w", encoding="utf-8")

    # The key history: the published key is in it, each fingerprint is its key's, each key after the first is
    # endorsed by the previous one (openssl checks the signatures listed in endorsements.tsv).
    if history is not None:
        os.makedirs(os.path.join(work, "endorse"), exist_ok=True)
        with open(os.path.join(work, "endorsements.tsv"), "w", encoding="utf-8") as endorsements:
            if published not in trusted:
                fail(None, "KEY_NOT_IN_HISTORY", "the published signing key is not in the signing-key history")
            for i, k in enumerate(history["keys"]):
                stem = key_id(k["publicKey"])
                if stem != k["fingerprint"]:
                    fail(None, "FINGERPRINT_MISMATCH", "history key %d: fingerprint %s, SHA-256 of its key is %s" % (i + 1, k["fingerprint"], stem))
                if i == 0:
                    continue
                e = k.get("endorsement")
                previous_key = history["keys"][i - 1]
                if not e or e.get("signedBy") != previous_key["fingerprint"]:
                    fail(None, "ENDORSEMENT_MISSING", "history key %d is not endorsed by key %d" % (i + 1, i))
                    continue
                identity = {f: k[f] for f in ("fingerprint", "publicKey", "algorithm", "keySpec", "validFrom")}
                with open(os.path.join(work, "endorse", "%d.txt" % i), "wb") as f:
                    f.write(jcs(identity).encode("utf-8"))
                with open(os.path.join(work, "endorse", "%d.der" % i), "wb") as f:
                    f.write(base64.b64decode(e["signature"]))
                endorsements.write("%d\t%s\n" % (i, key_id(previous_key["publicKey"])))
    firm_id = None
    previous = None  # the previous well-formed record
    seen_ids = set()
    sequences = []

    for index, r in enumerate(records):
        if not isinstance(r, dict) or any(f not in r for f in RECORD_FIELDS):
            missing = [f for f in RECORD_FIELDS if not isinstance(r, dict) or f not in r]
            fail(r if isinstance(r, dict) else None, "MALFORMED_RECORD", "missing fields: " + ",".join(missing))
            previous = None
            continue
        extra = sorted(set(r) - set(RECORD_FIELDS))
        if extra:
            print("WARN seq=%s id=%s unsigned extra fields ignored: %s" % (r["sequenceNumber"], r["id"], ",".join(extra)))
        seq = r["sequenceNumber"]
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
            fail(r, "MALFORMED_RECORD", "sequenceNumber is not a positive integer")
            previous = None
            continue
        sequences.append(seq)

        # Tenancy and identity.
        if firm_id is None:
            firm_id = r["firmId"]
        elif r["firmId"] != firm_id:
            fail(r, "FIRM_MISMATCH", "firmId %s, chain of %s" % (r["firmId"], firm_id))
        if r["id"] in seen_ids:
            fail(r, "DUPLICATE_ID")
        seen_ids.add(r["id"])

        # Sequence numbers: from 1, strictly increasing, gapless.
        gap = False
        prev_seq = sequences[-2] if len(sequences) > 1 else 0
        if seq <= prev_seq:
            fail(r, "SEQUENCE_ORDER", "sequence %d follows %d" % (seq, prev_seq))
        elif seq != prev_seq + 1:
            gap = True
            fail(r, "SEQUENCE_GAP", "records %d..%d are missing" % (prev_seq + 1, seq - 1))

        # recordHash = hex(SHA-256(JCS(payload))).
        payload = {f: r[f] for f in PAYLOAD_FIELDS}
        try:
            record_hash = sha256_hex(jcs(payload))
        except (TypeError, ValueError) as error:
            fail(r, "MALFORMED_RECORD", "payload cannot be canonicalised: %s" % error)
            record_hash = None
        if record_hash is not None and record_hash != r["recordHash"]:
            fail(r, "RECORD_HASH_MISMATCH", "computed %s, stored %s" % (record_hash, r["recordHash"]))

        # chainHash = hex(SHA-256(UTF-8(previousHash or "") + UTF-8(recordHash))).
        prev_hash = r["previousHash"]
        if not (prev_hash is None or (isinstance(prev_hash, str) and HEX64.match(prev_hash))) or not isinstance(r["recordHash"], str):
            fail(r, "MALFORMED_RECORD", "previousHash or recordHash is not a hash")
        else:
            chain_hash = sha256_hex((prev_hash or "") + r["recordHash"])
            if chain_hash != r["chainHash"]:
                fail(r, "CHAIN_HASH_MISMATCH", "computed %s, stored %s" % (chain_hash, r["chainHash"]))

        # Link: previousHash is the previous record's chainHash (null for sequence 1).
        if seq == 1:
            if prev_hash is not None:
                fail(r, "BROKEN_LINK", "sequence 1 must have previousHash null, has %s" % prev_hash)
        elif previous is not None and not gap and seq == previous["sequenceNumber"] + 1:
            if prev_hash != previous["chainHash"]:
                fail(r, "BROKEN_LINK", "previousHash %s, previous chainHash %s" % (prev_hash, previous["chainHash"]))

        # Timestamps: ISO 8601 UTC with milliseconds, never decreasing along the chain.
        ts = r["timestamp"]
        if not isinstance(ts, str) or not TIMESTAMP.match(ts):
            fail(r, "TIMESTAMP_FORMAT", "%r is not YYYY-MM-DDTHH:MM:SS.mmmZ" % (ts,))
        elif previous is not None and isinstance(previous["timestamp"], str) and ts < previous["timestamp"]:
            fail(r, "TIMESTAMP_ORDER", "%s is before the previous record's %s" % (ts, previous["timestamp"]))

        # Signature: the key must be trusted; the check itself is openssl's (see the shell part).
        key = r["publicKey"]
        if history is not None and key in trusted:
            problem = key_problem(history, key, ts)
            if problem:
                fail(r, problem[0], problem[1])
        if key in trusted:
            try:
                stem = key_id(key)
            except ValueError:
                fail(r, "PUBLIC_KEY_NOT_TRUSTED", "publicKey is not base64")
                stem = published_id
        else:
            fail(r, "PUBLIC_KEY_NOT_TRUSTED", "publicKey is not a published signing key")
            stem = published_id  # still check the signature against the trusted key
        try:
            signature = base64.b64decode(r["signature"], validate=True)
        except (ValueError, TypeError):
            fail(r, "BAD_SIGNATURE", "signature is not base64")
        else:
            with open(os.path.join(work, "sig", "%d.der" % index), "wb") as f:
                f.write(signature)
            with open(os.path.join(work, "sig", "%d.txt" % index), "wb") as f:
                f.write(str(r["chainHash"]).encode("utf-8"))  # the 64 hex characters, no newline
            manifest.write("%d\t%d\t%s\t%s\n" % (index, seq, r["id"], stem))

        # Immutable copy: the JCS canonical JSON of the full record, byte for byte.
        if immutable_dir:
            path = os.path.join(immutable_dir, "%012d-%s.json" % (seq, r["id"]))
            if not os.path.exists(path):
                fail(r, "IMMUTABLE_COPY_MISSING", path)
            else:
                with open(path, "rb") as f:
                    stored = f.read()
                expected = jcs({f: r[f] for f in RECORD_FIELDS}).encode("utf-8")
                if stored != expected:
                    fail(r, "IMMUTABLE_COPY_MISMATCH", "%s differs from the record" % path)
        previous = r

    manifest.close()

    # Records that are gone from the listing.
    if total is not None and sequences and max(sequences) < total:
        fail(None, "RECORDS_MISSING_AT_END", "the chain has %d records, the listing ends at %d" % (total, max(sequences)))
    elif total is not None and len(records) != total:
        fail(None, "COUNT_MISMATCH", "the listing reports %d records, %d were returned" % (total, len(records)))
    if immutable_dir and os.path.isdir(immutable_dir):
        listed = set(sequences)
        for name in sorted(os.listdir(immutable_dir)):
            m = re.match(r"^(\d{12})-[^/]+\.json$", name)
            if m and int(m.group(1)) not in listed:
                fail(None, "RECORD_ONLY_IN_IMMUTABLE_COPY", "sequence %d (%s) is not in the listing" % (int(m.group(1)), name))

    with open(os.path.join(work, "summary"), "w") as f:
        f.write("%d %d %s %s %s\n" % (len(records), failures, firm_id or "-",
                                     min(sequences) if sequences else "-", max(sequences) if sequences else "-"))

    if os.environ.get("SAVE_DIR"):
        with open(os.path.join(os.environ["SAVE_DIR"], "records.json"), "w", encoding="utf-8") as f:
            json.dump({"data": records, "pagination": {"page": 1, "pageSize": len(records), "total": total if total is not None else len(records), "totalPages": 1}}, f, indent=2, ensure_ascii=False)
            f.write("\n")

if __name__ == "__main__":
    if sys.argv[1] == "--canonicalize":
        canonicalize_stdin()
    else:
        work, key_file, immutable_dir, history_file = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
        main(work, sys.argv[6:], key_file, immutable_dir, history_file)
PY

# ---------------------------------------------------------------------------------------------------------

SAVE_DIR=""
OFFLINE_DIR=""
IMMUTABLE_DIR=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --save) SAVE_DIR="${2:?--save needs a directory}"; shift 2 ;;
    --offline) OFFLINE_DIR="${2:?--offline needs a directory}"; shift 2 ;;
    --immutable) IMMUTABLE_DIR="${2:?--immutable needs a directory}"; shift 2 ;;
    --canonicalize) exec python3 -c "$PY_CODE" --canonicalize ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done

for tool in python3 openssl; do
  command -v "$tool" >/dev/null || die "$tool is required"
done
if [[ -z $OFFLINE_DIR ]]; then
  for tool in curl jq; do
    command -v "$tool" >/dev/null || die "$tool is required"
  done
  [[ -n ${BASE_URL:-} ]] || die "set BASE_URL (e.g. http://localhost:3000)"
  [[ -n ${API_KEY:-} ]] || die "set API_KEY (the firm's API key)"
  BASE_URL="${BASE_URL%/}"
fi
[[ -z $IMMUTABLE_DIR || -d $IMMUTABLE_DIR ]] || die "--immutable $IMMUTABLE_DIR is not a directory"
if [[ -n $SAVE_DIR ]]; then
  mkdir -p "$SAVE_DIR"
  SAVE_DIR="$(cd "$SAVE_DIR" && pwd)"
fi
PAGE_SIZE="${PAGE_SIZE:-100}"
[[ $PAGE_SIZE =~ ^[0-9]+$ ]] && ((PAGE_SIZE >= 1 && PAGE_SIZE <= 100)) || die "PAGE_SIZE must be 1..100"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/pages"

# GET url outfile [curl options...]: the body goes to outfile; anything but 200 stops the run.
fetch() {
  local url="$1" out="$2" code
  shift 2
  # shellcheck disable=SC2086
  code="$(curl -sS ${CURL_OPTS:-} -o "$out" -w '%{http_code}' -H 'Accept: application/json' "$@" "$url")" ||
    die "cannot reach $url"
  [[ $code == 200 ]] || die "GET $url answered HTTP $code: $(head -c 400 "$out")"
}

# 1. The published signing key and the records, in chain order.
if [[ -n $OFFLINE_DIR ]]; then
  KEY_FILE="$OFFLINE_DIR/signing-key.json"
  SOURCES=("$OFFLINE_DIR/records.json")
  [[ -f $KEY_FILE && -f ${SOURCES[0]} ]] || die "$OFFLINE_DIR must hold records.json and signing-key.json"
  HISTORY_FILE=""
  [[ ! -f $OFFLINE_DIR/signing-keys.json ]] || HISTORY_FILE="$OFFLINE_DIR/signing-keys.json"
else
  KEY_FILE="$WORK/signing-key.json"
  fetch "$BASE_URL/.well-known/signing-key" "$KEY_FILE"
  HISTORY_FILE="$WORK/signing-keys.json"
  fetch "$BASE_URL/.well-known/signing-keys" "$HISTORY_FILE"
  page=1
  SOURCES=()
  while :; do
    file="$WORK/pages/$(printf '%06d' "$page").json"
    fetch "$BASE_URL/v1/ledger/records?order=asc&page=$page&pageSize=$PAGE_SIZE" "$file" -H "X-Service-Key: $API_KEY"
    SOURCES+=("$file")
    count="$(jq '.data | length' "$file")"
    pages="$(jq '.pagination.totalPages' "$file")"
    echo "verify-chain: page $page of $pages: $count records" >&2
    ((count > 0 && page < pages)) || break
    page=$((page + 1))
  done
  [[ -z $SAVE_DIR ]] || cp "$KEY_FILE" "$SAVE_DIR/signing-key.json"
  [[ -z $SAVE_DIR ]] || cp "$HISTORY_FILE" "$SAVE_DIR/signing-keys.json"
fi

FAILURES=0
fail() {
  echo "FAIL $*"
  FAILURES=$((FAILURES + 1))
}

# 2. The published key: base64 DER SubjectPublicKeyInfo of a P-256 key, algorithm ECDSA_SHA_256, and
#    (when published) fingerprint = hex SHA-256 of the DER bytes.
jq -r '.publicKey' "$KEY_FILE" | openssl base64 -d -A >"$WORK/published.der"
if ! openssl pkey -pubin -inform DER -in "$WORK/published.der" -outform PEM -out "$WORK/published.pem" 2>/dev/null; then
  fail "key KEY_UNREADABLE the published publicKey is not a DER SubjectPublicKeyInfo"
elif ! openssl pkey -pubin -in "$WORK/published.pem" -noout -text 2>/dev/null | grep -q 'prime256v1'; then
  fail "key KEY_NOT_P256 the published key is not on curve P-256 (prime256v1)"
fi
algorithm="$(jq -r '.algorithm // empty' "$KEY_FILE")"
[[ $algorithm == ECDSA_SHA_256 ]] || fail "key UNEXPECTED_ALGORITHM published algorithm is '$algorithm', expected ECDSA_SHA_256"
published_fp="$(jq -r '.fingerprint // empty' "$KEY_FILE")"
actual_fp="$(openssl dgst -sha256 -r "$WORK/published.der" | cut -d' ' -f1)"
[[ -z $published_fp || $published_fp == "$actual_fp" ]] ||
  fail "key FINGERPRINT_MISMATCH published fingerprint $published_fp, SHA-256 of the key is $actual_fp"
[[ -z ${KEY_FINGERPRINT:-} || ${KEY_FINGERPRINT,,} == "$actual_fp" ]] ||
  fail "key NOT_THE_EXPECTED_KEY the published key has fingerprint $actual_fp, KEY_FINGERPRINT is $KEY_FINGERPRINT"

# 3. Hashes, links, sequence numbers, timestamps, key trust (and immutable copies) per record.
while IFS= read -r line; do
  echo "$line"
  [[ $line == FAIL* ]] && FAILURES=$((FAILURES + 1))
done < <(SAVE_DIR="$SAVE_DIR" python3 -c "$PY_CODE" check "$WORK" "$KEY_FILE" "$IMMUTABLE_DIR" "$HISTORY_FILE" "${SOURCES[@]}" || echo "PYERROR")
[[ -f $WORK/summary ]] || die "the record checks did not complete"
read -r RECORDS _ FIRM FIRST LAST <"$WORK/summary"

# 4. Signatures: DER ECDSA P-256 over SHA-256 of the UTF-8 chainHash text, checked by openssl against the
#    trusted key in PEM form.
for der in "$WORK"/keys/*.der; do
  [[ -e $der ]] || continue
  openssl pkey -pubin -inform DER -in "$der" -outform PEM -out "${der%.der}.pem" 2>/dev/null || true
done
while IFS=$'\t' read -r index seq id key; do
  if ! openssl dgst -sha256 -verify "$WORK/keys/$key.pem" -signature "$WORK/sig/$index.der" \
    "$WORK/sig/$index.txt" >/dev/null 2>&1; then
    fail "seq=$seq id=$id BAD_SIGNATURE the signature does not verify over the chainHash with the signing key"
  fi
done <"$WORK/signatures.tsv"
# Each key after the first: the previous key's signature over the RFC 8785 JSON of the new key's identity.
if [[ -f $WORK/endorsements.tsv ]]; then
  while IFS=$'\t' read -r index key; do
    if ! openssl dgst -sha256 -verify "$WORK/keys/$key.pem" -signature "$WORK/endorse/$index.der" \
      "$WORK/endorse/$index.txt" >/dev/null 2>&1; then
      fail "history BAD_ENDORSEMENT key $((index + 1)) is not endorsed by a signature of key $index"
    fi
  done <"$WORK/endorsements.tsv"
fi

# 5. Summary.
if ((RECORDS == 0)); then
  echo "No records to verify (the firm's ledger is empty); key checks: $([[ $FAILURES -eq 0 ]] && echo ok || echo failed)"
elif ((FAILURES == 0)); then
  echo "OK: $RECORDS records of $FIRM verified (sequence $FIRST..$LAST): record hashes, chain hashes, links, signatures, sequence numbers and timestamps${HISTORY_FILE:+, key windows in the signing-key history and its endorsements}${IMMUTABLE_DIR:+, immutable copies}"
else
  echo "FAILED: $FAILURES problem(s) in $RECORDS records of $FIRM (sequence $FIRST..$LAST)"
fi
((FAILURES == 0)) || exit 1
