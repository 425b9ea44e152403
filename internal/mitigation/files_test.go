package mitigation

import "testing"

// TestPredictFiles: every file the machine shows comes back, in order;
// a mitigated file the line turns off is given up (class vulnerable, no
// text predicted), one it leaves is the same text, and a gain the model
// predicts (retbleed=force on an AMD CPU not affected, its spectre_v2 in
// a mode that mitigates it) is listed as gained, from not affected to
// mitigated; back to the default line, a file the running line turned
// off is gained again.
func TestPredictFiles(t *testing.T) {
	kb, err := KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	vulns := []Vulnerability{
		ParseVulnerability("meltdown", "Mitigation: PTI"),
		ParseVulnerability("retbleed", "Not affected"),
		ParseVulnerability("spectre_v2", "Mitigation: Retpolines; IBPB: conditional; STIBP: disabled; RSB filling"),
		ParseVulnerability("vmscape", "Not affected"),
	}
	m := NewMachine("x86", "AuthenticAMD", "25", "6.1.0-57-amd64", "native", vulns)
	files := kb.PredictFiles(m, nil, ParseCmdline("nopti retbleed=force").Params)
	if len(files) != len(vulns) {
		t.Fatalf("%d files for %d", len(files), len(vulns))
	}
	byName := map[string]FilePrediction{}
	for i, f := range files {
		if f.Name != vulns[i].Name {
			t.Errorf("file %d is %s, want %s", i, f.Name, vulns[i].Name)
		}
		byName[f.Name] = f
	}
	if f := byName["meltdown"]; f.Change != ClassGivenUp || f.To != (FileState{Class: Vulnerable}) || f.By != "nopti" {
		t.Errorf("meltdown %+v", f)
	}
	if f := byName["retbleed"]; f.Change != ClassGained || f.To.Class != Mitigated || f.From.Class != NotAffected {
		t.Errorf("retbleed %+v", f)
	}
	if f := byName["vmscape"]; f.Change != "" || f.To != f.From {
		t.Errorf("vmscape %+v: nothing aims at it", f)
	}
	back := kb.PredictFiles(NewMachine("x86", "AuthenticAMD", "25", "6.1.0-57-amd64", "native", []Vulnerability{ParseVulnerability("meltdown", "Vulnerable")}),
		ParseCmdline("nopti").Params, nil)
	if f := back[0]; f.Change != ClassGained || f.To.Class != Mitigated || f.By != "nopti" {
		t.Errorf("meltdown regained %+v", f)
	}
}
