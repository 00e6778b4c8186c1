package motoserver

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Route 53 API operations the proxy tells apart, as the AWS API names
// them. Requests it does not recognise count under OpOther.
const (
	OpListHostedZones          = "ListHostedZones"
	OpListHostedZonesByName    = "ListHostedZonesByName"
	OpGetHostedZone            = "GetHostedZone"
	OpGetHostedZoneCount       = "GetHostedZoneCount"
	OpCreateHostedZone         = "CreateHostedZone"
	OpDeleteHostedZone         = "DeleteHostedZone"
	OpListResourceRecordSets   = "ListResourceRecordSets"
	OpChangeResourceRecordSets = "ChangeResourceRecordSets"
	OpGetChange                = "GetChange"
	OpListTagsForResource      = "ListTagsForResource"
	OpListTagsForResources     = "ListTagsForResources"
	OpChangeTagsForResource    = "ChangeTagsForResource"
	OpOther                    = "Other"
)

// Counts is the number of requests per operation (the Op* names).
type Counts map[string]int

// Total is the number of requests of every operation.
func (c Counts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// String renders the counts as "Op=n" pairs sorted by operation.
func (c Counts) String() string {
	ops := make([]string, 0, len(c))
	for op := range c {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	parts := make([]string, len(ops))
	for i, op := range ops {
		parts[i] = fmt.Sprintf("%s=%d", op, c[op])
	}
	return strings.Join(parts, " ")
}

// Operation names the Route 53 API operation of a request from its method
// and URL path (REST paths under /2013-04-01/), OpOther when it is none
// of the Op* operations.
func Operation(method, path string) string {
	rest, ok := strings.CutPrefix(path, apiVersion+"/")
	if !ok {
		return OpOther
	}
	parts := strings.Split(strings.TrimSuffix(rest, "/"), "/")
	get, post, del := method == http.MethodGet, method == http.MethodPost, method == http.MethodDelete
	switch {
	case len(parts) == 1 && parts[0] == "hostedzone" && get:
		return OpListHostedZones
	case len(parts) == 1 && parts[0] == "hostedzone" && post:
		return OpCreateHostedZone
	case len(parts) == 1 && parts[0] == "hostedzonesbyname" && get:
		return OpListHostedZonesByName
	case len(parts) == 1 && parts[0] == "hostedzonecount" && get:
		return OpGetHostedZoneCount
	case len(parts) == 2 && parts[0] == "hostedzone" && get:
		return OpGetHostedZone
	case len(parts) == 2 && parts[0] == "hostedzone" && del:
		return OpDeleteHostedZone
	case len(parts) == 3 && parts[0] == "hostedzone" && parts[2] == "rrset" && get:
		return OpListResourceRecordSets
	case len(parts) == 3 && parts[0] == "hostedzone" && parts[2] == "rrset" && post:
		return OpChangeResourceRecordSets
	case len(parts) == 2 && parts[0] == "change" && get:
		return OpGetChange
	case len(parts) == 3 && parts[0] == "tags" && get:
		return OpListTagsForResource
	case len(parts) == 3 && parts[0] == "tags" && post:
		return OpChangeTagsForResource
	case len(parts) == 2 && parts[0] == "tags" && post:
		return OpListTagsForResources
	}
	return OpOther
}

// serveProxy counts the request, checks a ChangeResourceRecordSets batch
// and passes everything else to moto unchanged.
func (s *Server) serveProxy(w http.ResponseWriter, r *http.Request) {
	op := Operation(r.Method, r.URL.Path)
	s.mu.Lock()
	s.counts[op]++
	s.mu.Unlock()
	if op == OpChangeResourceRecordSets {
		s.serveChange(w, r)
		return
	}
	s.forward(w, r, nil)
}

// aliasTTL is how moto renders an alias record set's absent TTL; Route 53
// sends none.
const aliasTTL = "<TTL>0</TTL><AliasTarget>"

// dropAliasTTL removes the TTL moto adds to alias record sets from a
// ListResourceRecordSets answer.
func dropAliasTTL(resp *http.Response) error {
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if err := resp.Body.Close(); err != nil {
		return err
	}
	body = bytes.ReplaceAll(body, []byte(aliasTTL), []byte("<AliasTarget>"))
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return nil
}

// forward passes the request to moto, with body in place of the request's
// when set.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, body []byte) {
	target, err := url.Parse(s.motoURL)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.Header.Del("Content-Length")
		// The SDK's checksum and signature headers cover the original body;
		// moto checks neither.
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = pr.In.Host
		},
	}
	if Operation(r.Method, r.URL.Path) == OpListResourceRecordSets {
		rp.ModifyResponse = dropAliasTTL
	}
	rp.ServeHTTP(w, r)
}

// serveChange checks a ChangeResourceRecordSets batch against the zone as
// moto holds it and either refuses it with Route 53's InvalidChangeBatch
// document or sends moto the batch planBatch made of it.
func (s *Server) serveChange(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req changeRequest
	if err := xml.Unmarshal(body, &req); err != nil {
		// Not a batch the proxy understands: moto answers it.
		s.forward(w, r, body)
		return
	}
	// /2013-04-01/hostedzone/<id>/rrset
	parts := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, apiVersion), "/"), "/")
	zoneID := parts[1]

	s.changeMu.Lock()
	defer s.changeMu.Unlock()
	zone, err := s.zoneName(r.Context(), zoneID)
	var se *statusError
	if errors.As(err, &se) {
		// No such zone, for one: moto's own error document.
		s.forward(w, r, body)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	current, err := s.recordSets(r.Context(), zoneID)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	var msgs []string
	var batch []Change
	if batchRecords(req.ChangeBatch.Changes) > MaxBatchRecords {
		msgs = []string{fmt.Sprintf("Number of records limit of %d exceeded.", MaxBatchRecords)}
	} else {
		msgs, batch = planBatch(zone, current, req.ChangeBatch.Changes)
	}
	if len(msgs) > 0 {
		s.mu.Lock()
		s.refuse = append(s.refuse, Refusal{ZoneID: zoneID, Messages: msgs})
		s.mu.Unlock()
		id := randomID()
		w.Header().Set("Content-Type", "text/xml")
		w.Header().Set("X-Amzn-Requestid", id)
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(invalidChangeBatchBody(msgs, id))
		return
	}
	// The batch for moto may hold more records than the client's (CREATE
	// became UPSERT, which counts twice; UPSERTs were added after DELETEs):
	// all but the last part go straight to moto, and the last is the
	// answer. The check above makes every part succeed.
	if len(batch) == 0 {
		// An empty batch: moto refuses it as Route 53 does.
		s.forward(w, r, body)
		return
	}
	pieces := chunkChanges(batch)
	for _, part := range pieces[:len(pieces)-1] {
		if err := s.motoChange(r.Context(), zoneID, part); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
	}
	out, err := marshalChanges(pieces[len(pieces)-1])
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.forward(w, r, out)
}
