package mitigation

import (
	"bytes"
	"strings"
	"testing"
)

// A corpus file is read back as written, sorted; plain JSON lines are read
// too; an unknown field or a cut file is an error naming the line.
func TestObservationsRoundTrip(t *testing.T) {
	on := true
	obs := []Observation{
		{Release: "7.2.13+deb14-amd64", CPUModel: "Skylake-Client-v1", Params: "mitigations=off", Files: map[string]string{"meltdown": "Vulnerable"}, SMTActive: &on},
		{Release: "6.1.0-57-amd64", CPUModel: "EPYC-v1", Params: "", Files: nil},
	}
	data, err := EncodeObservations(obs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadObservations(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Release != "6.1.0-57-amd64" || got[1].Files["meltdown"] != "Vulnerable" || got[1].SMTActive == nil || got[0].Files != nil {
		t.Errorf("read back %+v", got)
	}
	if m := got[0].Machine(); m.Vulns != nil || m.Lines != nil {
		t.Errorf("no vulnerability folder became %+v", m)
	}
	if m := got[1].Machine(); len(m.Vulns) != 1 || m.Vulns[0].State != Vulnerable {
		t.Errorf("machine %+v", m)
	}
	plain := `{"release":"6.1.0-57-amd64","files":{"mds":"Not affected"}}` + "\n"
	if got, err := ReadObservations(strings.NewReader(plain)); err != nil || len(got) != 1 {
		t.Errorf("plain JSON lines: %v %+v", err, got)
	}
	if _, err := ReadObservations(strings.NewReader(`{"release":"x","guess":1}`)); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("unknown field: %v", err)
	}
	if _, err := ReadObservations(bytes.NewReader(data[:len(data)/2])); err == nil {
		t.Error("a cut gzip file was read without an error")
	}
}

// Boots of one kernel and CPU model are sorted two threads per core
// first, then by parameters, and read back with their topology.
func TestObservationsThreads(t *testing.T) {
	obs := []Observation{
		{Release: "7.3-amd64", CPUModel: "EPYC-Rome-v1", Threads: 1, Params: ""},
		{Release: "7.3-amd64", CPUModel: "EPYC-Rome-v1", Threads: 2, Params: "nosmt"},
		{Release: "7.3-amd64", CPUModel: "EPYC-Rome-v1", Threads: 2, Params: ""},
	}
	data, err := EncodeObservations(obs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadObservations(bytes.NewReader(data))
	if err != nil || len(got) != 3 {
		t.Fatalf("%v %+v", err, got)
	}
	if got[0].Threads != 2 || got[0].Params != "" || got[1].Params != "nosmt" || got[2].Threads != 1 {
		t.Errorf("order: %+v", got)
	}
}

func FuzzReadObservations(f *testing.F) {
	data, _ := EncodeObservations([]Observation{{Release: "7.2.13", Files: map[string]string{"mds": "Not affected"}}})
	f.Add(data)
	f.Add([]byte(`{"release":"6.1","files":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		obs, _ := ReadObservations(bytes.NewReader(b))
		for _, o := range obs {
			_ = o.Machine()
		}
	})
}
