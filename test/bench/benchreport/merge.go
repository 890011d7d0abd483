package main

import (
	"encoding/json"
	"os"
	"strings"
)

// build makes the report of one run. With old (the JSON report before), the
// sections this run did not measure are kept from old, each with the run it
// comes from: `hack/bench.sh SECTION...` measures some sections again
// without losing the others' figures, or passing them off as new.
func build(p *parsed, run Run, old *Report) Report {
	rep := Report{Commit: run.Commit, Date: run.Date, Machine: run.Machine}
	// A section of a report written before titles existed is the titled
	// section of the same command.
	replaced := func(s Section) (string, bool) {
		for _, f := range p.sections {
			if f.key() == s.key() || s.Title == "" && f.Command == s.Command {
				return f.key(), true
			}
		}
		return "", false
	}
	var oldSections []Section
	ids := map[int]int{} // an old run's ID -> its ID here
	if old != nil {
		oldSections = old.Sections
		for _, r := range old.Runs {
			for _, s := range old.Sections {
				if _, ok := replaced(s); s.Run == r.ID && !ok {
					ids[r.ID] = len(rep.Runs) + 1
					r.ID = ids[s.Run]
					rep.Runs = append(rep.Runs, r)
					break
				}
			}
		}
	}
	run.ID = len(rep.Runs) + 1
	rep.Runs = append(rep.Runs, run)

	// A section measured again takes the place of the old one; new
	// sections come last.
	type source struct {
		section Section
		from    *parsed
	}
	var order []source
	placed := map[string]bool{}
	freshSection := func(key string) Section {
		for _, s := range p.sections {
			if s.key() == key {
				s.Run = run.ID
				return s
			}
		}
		panic("no section " + key)
	}
	for _, s := range oldSections {
		if key, ok := replaced(s); ok {
			if !placed[key] {
				order = append(order, source{freshSection(key), p})
			}
			placed[key] = true
			continue
		}
		s.Run = ids[s.Run]
		order = append(order, source{s, &parsed{results: old.Results, notes: old.Notes, targets: old.Targets}})
	}
	for _, s := range p.sections {
		if !placed[s.key()] {
			order = append(order, source{freshSection(s.key()), p})
		}
	}
	for _, o := range order {
		c := o.section.Command
		rep.Sections = append(rep.Sections, o.section)
		for _, r := range o.from.results {
			if r.Command == c {
				rep.Results = append(rep.Results, r)
			}
		}
		for _, n := range o.from.notes {
			if n.Command == c {
				rep.Notes = append(rep.Notes, n)
			}
		}
		for _, t := range o.from.targets {
			if t.Command == c {
				rep.Targets = append(rep.Targets, t)
			}
		}
	}
	judge(rep.Targets, rep.Results)
	return rep
}

// load reads a JSON report. One written before runs and sections existed
// (notes as plain strings) becomes one run whose sections are its commands;
// each note goes to the section of the benchmark it starts with.
func load(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err == nil && len(rep.Runs) > 0 {
		return &rep, nil
	}
	var legacy struct {
		Commit  string   `json:"commit"`
		Date    string   `json:"date"`
		Machine string   `json:"machine"`
		Results []Result `json:"results"`
		Notes   []string `json:"notes"`
	}
	if err := json.Unmarshal(data, &legacy); err != nil {
		return nil, err
	}
	rep = Report{Commit: legacy.Commit, Date: legacy.Date, Machine: legacy.Machine, Results: legacy.Results,
		Runs: []Run{{ID: 1, Commit: legacy.Commit, Date: legacy.Date, Machine: legacy.Machine}}}
	for _, r := range legacy.Results {
		if len(rep.Sections) == 0 || rep.Sections[len(rep.Sections)-1].Command != r.Command {
			rep.Sections = append(rep.Sections, Section{Command: r.Command, Run: 1})
		}
	}
	for _, n := range legacy.Notes {
		command := ""
		if len(rep.Sections) > 0 {
			command = rep.Sections[len(rep.Sections)-1].Command
		}
		for _, r := range legacy.Results {
			if strings.HasPrefix(n, r.Name+":") {
				command = r.Command
				break
			}
		}
		rep.Notes = append(rep.Notes, Note{Command: command, Text: n})
	}
	return &rep, nil
}
