// Package webhook speaks the external-dns webhook provider protocol
// (COMPAT.md §2), in both directions.
//
// [NewHandler] serves any [provider.Provider] as an http.Handler, so that
// external-dns itself (--provider=webhook) or any other webhook client can
// use a zonesync provider; [Serve] runs it with sensible timeouts on
// 127.0.0.1:8888 until its context ends. [NewProvider] is the client: a
// provider.Provider backed by a webhook server, such as external-dns in
// --webhook-server mode (reaching Route 53, Cloud DNS, Azure DNS ...) or a
// community webhook provider.
//
// # Wire format
//
// Bodies are the JSON forms of external-dns: endpoint lists and change sets
// are encoded byte for byte as encoding/json encodes the endpoint and plan
// types, and decoded exactly as encoding/json would decode them (keys in
// any case, so pre-v0.17 "Create"/"UpdateOld" change sets work; unknown
// keys ignored). Both directions stream: the server writes records straight
// into the response, the client decodes straight from the response body
// and encodes change sets while they are sent, so no second copy of a large
// body is held in memory, and allocations stay at a few per record.
//
// # Status codes
//
// The client requires exactly 200 from GET /records and POST
// /adjustendpoints and exactly 204 from POST /records. 500–510 become a
// [provider.SoftError] (retry at the next cycle), as in external-dns; any
// other status, a transport error, a timeout or a body that does not decode
// is a plain error. Every error names the method, the URL, the status and
// the start of the server's message.
//
// The server answers 200/204 on success, 500 when the provider fails, 400
// when a body does not decode, 413 when it exceeds the cap, 405 for a
// method a route does not serve, 415 for a POST whose Content-Type is
// neither [MediaType] nor application/json, and 404 for unknown paths.
// (external-dns's own server answers 400 for wrong methods and serves the
// negotiation on every unknown path; its client treats all of these as
// errors, so the stricter answers change nothing for it.)
//
// # Concurrency
//
// The handler and the client Provider are safe for concurrent use. Each
// request has its own buffers; nothing is shared between handlers or
// providers.
package webhook
