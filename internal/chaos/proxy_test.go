package chaos

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// query builds a DNS message with one question for "a.example." of type
// qtype and the given opcode.
func query(id uint16, opcode int, qtype uint16) []byte {
	m := make([]byte, headerLen)
	binary.BigEndian.PutUint16(m, id)
	m[2] = byte(opcode << 3)
	binary.BigEndian.PutUint16(m[4:], 1)
	m = append(m, 1, 'a', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 0)
	m = binary.BigEndian.AppendUint16(m, qtype)
	return binary.BigEndian.AppendUint16(m, 1)
}

func TestParseRequest(t *testing.T) {
	tests := []struct {
		name string
		msg  []byte
		want Request
	}{
		{"axfr", query(7, OpcodeQuery, TypeAXFR), Request{ID: 7, Opcode: OpcodeQuery, QType: TypeAXFR}},
		{"update", query(9, OpcodeUpdate, 6), Request{ID: 9, Opcode: OpcodeUpdate, QType: 6}},
		{"no question", query(3, OpcodeQuery, 1)[:headerLen], Request{ID: 3}},
		{"short", []byte{1, 2, 3}, Request{}},
		{"truncated question", query(5, OpcodeQuery, 1)[:headerLen+4], Request{ID: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "no question" {
				binary.BigEndian.PutUint16(tt.msg[4:], 0)
			}
			assert.Equal(t, tt.want, parseRequest(tt.msg))
		})
	}
}

// fakeServer answers every message with answers copies of it (same ID)
// and counts the requests it read.
func fakeServer(t *testing.T, answers int) (addr string, seen *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	seen = &atomic.Int64{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				for {
					msg, err := readMsg(c)
					if err != nil {
						return
					}
					seen.Add(1)
					for range answers {
						if writeMsg(c, msg) != nil {
							return
						}
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), seen
}

func TestProxyCuts(t *testing.T) {
	tests := []struct {
		name     string
		fault    Fault
		answers  int
		wantSeen int64
		wantGot  int
		wantCut  bool
	}{
		{"none", Fault{}, 3, 1, 3, false},
		{"before request", Fault{Cut: CutBeforeRequest}, 1, 0, 0, true},
		{"before answer", Fault{Cut: CutBeforeAnswer}, 1, 1, 0, true},
		{"mid answer", Fault{Cut: CutAfterMessages, After: 1}, 3, 1, 1, true},
		{"answer shorter than the cut", Fault{Cut: CutAfterMessages, After: 2}, 2, 1, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr, seen := fakeServer(t, tt.answers)
			var reqs []Request
			p, err := NewProxy(addr, func(r Request) Fault {
				reqs = append(reqs, r)
				return tt.fault
			})
			require.NoError(t, err)
			defer p.Close()

			c, err := net.Dial("tcp", p.Addr())
			require.NoError(t, err)
			defer c.Close()
			require.NoError(t, writeMsg(c, query(42, OpcodeQuery, TypeAXFR)))
			require.NoError(t, c.SetReadDeadline(time.Now().Add(500*time.Millisecond)))
			got := 0
			var readErr error
			for {
				if _, readErr = readMsg(c); readErr != nil {
					break
				}
				got++
			}
			assert.Equal(t, tt.wantGot, got)
			var ne net.Error
			if tt.wantCut {
				assert.ErrorIs(t, readErr, io.EOF, "the proxy closes the connection")
			} else {
				assert.True(t, errors.As(readErr, &ne) && ne.Timeout(), "the connection stays open: %v", readErr)
			}
			require.Eventually(t, func() bool { return seen.Load() == tt.wantSeen }, time.Second, 10*time.Millisecond)
			require.NoError(t, p.Close())
			assert.Equal(t, []Request{{Conn: 1, Seq: 1, ID: 42, Opcode: OpcodeQuery, QType: TypeAXFR}}, reqs)
			st := p.Stats()
			assert.Equal(t, 1, st.Requests)
			if tt.wantCut {
				assert.Equal(t, map[Cut]int{tt.fault.Cut: 1}, st.Cuts)
			} else {
				assert.Empty(t, st.Cuts)
			}
		})
	}
}
