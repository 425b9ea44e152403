package mitigation

import (
	"slices"
	"testing"
)

// TestClassifierAgreesWithKnowledge keeps the two descriptions of the
// kernel parameters together: the classifier's table (bugParams: which
// values turn a mitigation off or on) and the knowledge base (what each
// parameter is for). Every parameter the classifier knows must have a
// knowledge-base entry, and every vulnerability file the classifier says it
// changes must be among the files the knowledge base says it affects (the
// knowledge base also lists side effects the spec notes, such as
// spectre_v2= choosing the retbleed method, or spec_rstack_overflow=ibpb
// covering retbleed); the study's toggles must be toggles, not
// mitigations, in both.
func TestClassifierAgreesWithKnowledge(t *testing.T) {
	kb, err := KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range BugParams() {
		e, ok := kb.LookupParam(key)
		if !ok {
			t.Errorf("%s: classified as a mitigation parameter but missing from knowledge.json", key)
			continue
		}
		if !e.Mitigation {
			t.Errorf("%s: a mitigation parameter to the classifier, not to knowledge.json", key)
		}
		for _, f := range bugParams[key].files {
			if !slices.Contains(e.Affects, f) {
				t.Errorf("%s: classifier says it changes %s, knowledge.json's affects %v do not", key, f, e.Affects)
			}
		}
	}
	for key := range toggleNotes {
		e, ok := kb.LookupParam(key)
		if !ok || e.Mitigation {
			t.Errorf("%s: a study toggle to the classifier; knowledge.json has it %v, mitigation=%v", key, ok, e.Mitigation)
		}
	}
}
