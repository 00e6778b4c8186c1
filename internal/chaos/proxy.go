package chaos

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// DNS header facts the proxy needs (RFC 1035 §4.1.1).
const (
	headerLen = 12
	// OpcodeQuery and OpcodeUpdate are the DNS opcodes of a query and of
	// an RFC 2136 UPDATE.
	OpcodeQuery  = 0
	OpcodeUpdate = 5
	// TypeAXFR is the question type of a zone transfer.
	TypeAXFR = 252
)

// Request describes one DNS message a client sent through the proxy.
type Request struct {
	// Conn numbers the client connections from 1, in accept order.
	Conn int
	// Seq numbers the requests of one connection from 1.
	Seq int
	// ID is the message ID.
	ID uint16
	// Opcode is the DNS opcode (OpcodeQuery, OpcodeUpdate, ...).
	Opcode int
	// QType is the type of the first question (for an UPDATE, of the zone
	// section: SOA); 0 when the message has no question.
	QType uint16
}

// Cut says where the proxy cuts a connection.
type Cut int

// The places a connection can be cut, all at message boundaries.
const (
	// CutNone forwards the request and relays every answer.
	CutNone Cut = iota
	// CutBeforeRequest closes the connection without forwarding the
	// request: the server never sees it.
	CutBeforeRequest
	// CutBeforeAnswer forwards the request, waits for the server's first
	// answer message (so the server has acted on the request) and closes
	// the connection without relaying it: a lost response.
	CutBeforeAnswer
	// CutAfterMessages relays Fault.After answer messages and closes the
	// connection when the next one arrives: for a zone transfer, a cut in
	// the middle of the stream. When the answer has no more messages than
	// that, nothing is cut.
	CutAfterMessages
)

// String names the cut.
func (c Cut) String() string {
	switch c {
	case CutNone:
		return "none"
	case CutBeforeRequest:
		return "before-request"
	case CutBeforeAnswer:
		return "before-answer"
	case CutAfterMessages:
		return "mid-answer"
	}
	return fmt.Sprintf("Cut(%d)", int(c))
}

// Fault is what the proxy does with one request.
type Fault struct {
	// Cut is where the connection is cut.
	Cut Cut
	// After is the number of answer messages relayed before a
	// CutAfterMessages cut.
	After int
}

// Decider chooses the fault of each request. The proxy calls it with a
// mutex held, one request at a time, in the order the requests arrive.
type Decider func(Request) Fault

// Stats counts the cuts the proxy made, by kind.
type Stats struct {
	// Requests is the number of requests read from clients.
	Requests int
	// Cuts maps each kind of cut to the number of connections it closed.
	Cuts map[Cut]int
}

// Proxy forwards DNS over TCP (RFC 1035 §4.2.2: every message is preceded
// by its length in two bytes) between clients and one upstream server,
// message by message, and cuts connections where its Decider says. It
// opens one upstream connection per client connection.
type Proxy struct {
	upstream string
	ln       net.Listener

	mu       sync.Mutex // guards decide, stats and conns
	decide   Decider
	stats    Stats
	nextConn int
	conns    map[*pair]struct{}

	closed atomic.Bool
	wg     sync.WaitGroup
}

// NewProxy listens on a free port of 127.0.0.1 and forwards to upstream
// ("host:port"). A nil decide cuts nothing.
func NewProxy(upstream string, decide Decider) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("chaos: proxy to %s: listening: %w", upstream, err)
	}
	p := &Proxy{
		upstream: upstream,
		ln:       ln,
		decide:   decide,
		stats:    Stats{Cuts: map[Cut]int{}},
		conns:    map[*pair]struct{}{},
	}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's address, "127.0.0.1:<port>".
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// SetDecider replaces the decider; nil cuts nothing. Connections already
// open use the new one for their next request.
func (p *Proxy) SetDecider(decide Decider) {
	p.mu.Lock()
	p.decide = decide
	p.mu.Unlock()
}

// Stats returns a copy of the counts so far.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := Stats{Requests: p.stats.Requests, Cuts: make(map[Cut]int, len(p.stats.Cuts))}
	for k, v := range p.stats.Cuts {
		out.Cuts[k] = v
	}
	return out
}

// Close stops listening, closes every open connection and waits for the
// proxy's goroutines to end.
func (p *Proxy) Close() error {
	if p.closed.Swap(true) {
		return nil
	}
	err := p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		u, err := net.Dial("tcp", p.upstream)
		if err != nil {
			_ = c.Close()
			continue
		}
		pr := &pair{client: c, server: u, pending: map[uint16]*answerState{}}
		p.mu.Lock()
		if p.closed.Load() {
			p.mu.Unlock()
			pr.close()
			return
		}
		p.nextConn++
		pr.id = p.nextConn
		p.conns[pr] = struct{}{}
		p.mu.Unlock()
		p.wg.Add(2)
		go p.requests(pr)
		go p.answers(pr)
	}
}

// pair is one client connection and its upstream connection.
type pair struct {
	id             int
	client, server net.Conn
	once           sync.Once

	mu      sync.Mutex // guards pending
	pending map[uint16]*answerState
}

// answerState is the fault of a forwarded request, by message ID.
type answerState struct {
	fault   Fault
	relayed int
}

func (pr *pair) close() {
	pr.once.Do(func() {
		_ = pr.client.Close()
		_ = pr.server.Close()
	})
}

func (p *Proxy) forget(pr *pair) {
	pr.close()
	p.mu.Lock()
	delete(p.conns, pr)
	p.mu.Unlock()
}

func (p *Proxy) count(c Cut) {
	p.mu.Lock()
	p.stats.Cuts[c]++
	p.mu.Unlock()
}

// requests reads the client's messages and forwards them, or cuts.
func (p *Proxy) requests(pr *pair) {
	defer p.wg.Done()
	defer p.forget(pr)
	for seq := 1; ; seq++ {
		msg, err := readMsg(pr.client)
		if err != nil {
			return
		}
		req := parseRequest(msg)
		req.Conn, req.Seq = pr.id, seq
		p.mu.Lock()
		p.stats.Requests++
		var f Fault
		if p.decide != nil {
			f = p.decide(req)
		}
		p.mu.Unlock()
		if f.Cut == CutBeforeRequest {
			p.count(CutBeforeRequest)
			return
		}
		pr.mu.Lock()
		pr.pending[req.ID] = &answerState{fault: f}
		pr.mu.Unlock()
		if err := writeMsg(pr.server, msg); err != nil {
			return
		}
	}
}

// answers relays the server's messages, or cuts.
func (p *Proxy) answers(pr *pair) {
	defer p.wg.Done()
	defer p.forget(pr)
	for {
		msg, err := readMsg(pr.server)
		if err != nil {
			return
		}
		var f Fault
		var relayed int
		if len(msg) >= 2 {
			id := binary.BigEndian.Uint16(msg)
			pr.mu.Lock()
			if st := pr.pending[id]; st != nil {
				f, relayed = st.fault, st.relayed
				st.relayed++
			}
			pr.mu.Unlock()
		}
		switch {
		case f.Cut == CutBeforeAnswer:
			p.count(CutBeforeAnswer)
			return
		case f.Cut == CutAfterMessages && relayed >= f.After:
			p.count(CutAfterMessages)
			return
		}
		if err := writeMsg(pr.client, msg); err != nil {
			return
		}
	}
}

// parseRequest reads the header and the first question's type of msg;
// fields it cannot read stay zero.
func parseRequest(msg []byte) Request {
	var r Request
	if len(msg) < headerLen {
		return r
	}
	r.ID = binary.BigEndian.Uint16(msg)
	r.Opcode = int(msg[2]>>3) & 0xF
	if binary.BigEndian.Uint16(msg[4:]) == 0 {
		return r
	}
	i := headerLen
	for i < len(msg) {
		n := int(msg[i])
		if n == 0 {
			i++
			break
		}
		if n&0xC0 != 0 { // a compression pointer ends the name
			i += 2
			break
		}
		i += 1 + n
	}
	if i+2 <= len(msg) {
		r.QType = binary.BigEndian.Uint16(msg[i:])
	}
	return r
}

// errEmpty is returned for a message of length zero.
var errEmpty = errors.New("chaos: empty DNS message")

func readMsg(r io.Reader) ([]byte, error) {
	var l [2]byte
	if _, err := io.ReadFull(r, l[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint16(l[:])
	if n == 0 {
		return nil, errEmpty
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(r, msg); err != nil {
		return nil, err
	}
	return msg, nil
}

func writeMsg(w io.Writer, msg []byte) error {
	buf := make([]byte, 2+len(msg))
	binary.BigEndian.PutUint16(buf, uint16(len(msg)))
	copy(buf[2:], msg)
	_, err := w.Write(buf)
	return err
}
