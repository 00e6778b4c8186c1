// Package webhook speaks the external-dns webhook provider protocol (see
// docs/compatibility.md), in both directions.
//
// [NewHandler] serves any [provider.Provider] as an http.Handler, so that
// external-dns itself (--provider=webhook) or any other webhook client can
// use a zonesync provider; [Serve] runs it with sensible timeouts on
// 127.0.0.1:8888 until its context ends. [NewProvider] is the client: a
// provider.Provider backed by a webhook server: a community webhook
// provider outside external-dns, or external-dns itself in --webhook-server
// mode. external-dns's in-tree providers (Route 53, Cloud DNS, Azure DNS,
// Cloudflare ...) also run in-process, without a second binary, through the
// github.com/zonesync/zonesync/provider/externaldns module.
//
// # Wire format
//
// Bodies are the JSON forms of external-dns: endpoint lists and change sets
// are encoded byte for byte as encoding/json encodes the endpoint and plan
// types, and decoded exactly as encoding/json would decode them (keys in
// any case, so pre-v0.17 "Create"/"UpdateOld" change sets work; unknown
// keys ignored). Responses and the client's requests stream: the server
// writes records straight into the response, the client decodes straight
// from the response body and encodes change sets while they are sent, so
// no second copy of a large body is held in memory, and allocations stay at
// a few per record. The server reads a request body whole before decoding
// it (see "Memory bounds"). The
// codec is built on the jsontext tokenizer of
// github.com/go-json-experiment/json (the package that becomes
// encoding/json/jsontext); what it adds is encoding/json's treatment of
// keys, nulls, duplicates and escapes, and the memory bounds below. It does
// not use that module's generic decoder (json.UnmarshalDecode): with
// encoding/json's options it decodes the same values, but in 1.7 times
// the time with 6.4 times the allocations, and without the memory bound
// (see decode.go).
//
// # Configuration
//
// [NewHandler] takes a [ServerOptions] and [NewProvider] a [ClientOptions]:
// plain structs whose zero value gives the defaults, passed as an optional
// last argument (with several, the non-zero fields of later ones override
// earlier ones).
//
// # Guarantees
//
// The webhook protocol does not say what the provider behind a server
// guarantees (whether a create fails on an existing record, whether set
// identifiers are kept, which types and properties are stored; see
// [provider.Guarantees]), so by default the client [Provider] declares
// nothing and the core treats it with the safe assumptions: its creates
// are taken to overwrite (the records a create would replace are read
// again just before applying) and endpoints with a set identifier are not
// sent to it. Whoever knows the provider behind the server declares its
// guarantees with [ClientOptions.Guarantees], and [Provider.Guarantees]
// returns them. The server side sends none: a zonesync provider served
// with [NewHandler] declares its guarantees only to callers in its own
// process.
//
// # Status codes
//
// The client requires exactly 200 from GET /records and POST
// /adjustendpoints and exactly 204 from POST /records. 500–510 become a
// [provider.SoftError] (retry at the next cycle), as in external-dns, and so
// do transport failures: connection refused or reset, a connection closed
// before or inside the answer, a time-out, the request's own timeout
// ([ClientOptions.Timeout]) — a webhook sidecar that restarts is back at a later
// cycle. Negotiation retries transport failures and 5xx answers and, when
// they persist, fails with a soft error too. The end of the caller's context
// (cancelled or past its deadline) is reported as such, not soft; so are
// any other status, a TLS certificate the client does not trust, a body
// that does not decode, a body over the size cap ([ErrResponseTooLarge]) and
// a body that decodes to too much memory ([ErrBodyTooDense]): the same
// server would answer the same way at the next cycle. Every error names the
// method, the URL, the status and the start of the server's message.
//
// The server answers 200/204 on success, 500 when the provider fails, 400
// when a body does not decode, 413 when it exceeds the cap (in bytes or in
// decoded memory), 503 beyond the concurrency cap, 405 for a method a route
// does not serve, 415 for a POST whose Content-Type is
// neither [MediaType] nor application/json, and 404 for unknown paths.
// (external-dns's own server answers 400 for wrong methods and serves the
// negotiation on every unknown path; its client treats all of these as
// errors, so the stricter answers change nothing for it.)
//
// # Memory bounds
//
// Every body either side reads is capped: responses by
// [ClientOptions.MaxResponseBytes] (default [DefaultMaxResponseBytes];
// negotiation answers at most 16 MiB, error messages 256 bytes, and at most
// 1 MiB of an unread body is drained for connection reuse), requests by
// [ServerOptions.MaxRequestBytes] (default [DefaultMaxRequestBytes]). While
// decoding, the memory allocated for the values built is at most
// [MaxDecodedBytesPerByte] bytes per byte read plus 1 MiB (real bodies need
// 3 to 8), so the memory of one request or response is proportional to the
// bytes read whatever they hold: with the default caps a response can never
// take more than about 8 GiB and a request about 545 MiB (its body, then
// what it decodes to), and real ones take 4 to 9 times their size (lower
// [ClientOptions.MaxResponseBytes] for a webhook you do not trust, and
// [ServerOptions.MaxRequestBytes] or [ServerOptions.MaxConcurrentRequests]
// for a server that must stay small). The tokenizer holds one token (a
// string, a number, a name) of the body at a time, so a long string costs
// its own length once more while it is read.
//
// The server handles at most [DefaultMaxConcurrentRequests] requests at once
// (see [ServerOptions.MaxConcurrentRequests]) and answers the others 503, so
// the memory of the requests it serves is bounded by that count times the
// per-request bound. A POST's body is read into memory before the request
// takes its place among them, so that clients sending bodies slowly (a
// byte at a time, until the server's read timeout) do not keep every other
// request out; the bodies held at once, being read or served, share a
// budget of MaxConcurrentRequests times MaxRequestBytes (512 MiB with the
// defaults), taken a piece at a time as the bytes arrive (the first piece
// is 4 KiB), and a POST whose body would go over it is answered 503.
//
// # Concurrency
//
// The handler and the client Provider are safe for concurrent use. Each
// request has its own buffers; nothing is shared between handlers or
// providers.
package webhook
