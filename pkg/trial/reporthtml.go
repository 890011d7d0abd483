package trial

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
)

// The report as one self-contained HTML page: inline CSS and SVG, no script
// and nothing fetched, so that it opens from a ConfigMap or a CI artifact as
// it is. Its figures carry data-figure attributes named by their JSON paths
// (counts.moved, current.bound): the page shows what -o json says.

//go:embed report.html.tmpl
var reportPage string

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{"round": round}).Parse(reportPage))

// MaxPageUnits bounds the changed units the page lists; the counts still
// count them all, and the JSON report lists every one.
const MaxPageUnits = 500

// WriteHTML writes the report as an HTML page.
func (r *Report) WriteHTML(w io.Writer) error {
	return reportTemplate.Execute(w, newPage(r))
}

type page struct {
	*Report
	CurrentScheduler, CandidateScheduler string
	// Outcome is allowed, blocked or inconclusive: the verdict's word and CSS class.
	Outcome                            string
	MovedPercent, MovedByChangePercent string
	MaxMoved                           string
	Changed                            []unitRow
	// ChangedLeftOut is how many changed units the page does not list.
	ChangedLeftOut int
	Chart          chart
}

// Arms are the current arm's report, the candidate's, then the current configuration's second run.
func (p page) Arms() []ArmReport { return []ArmReport{p.Current, p.Candidate, p.Rerun} }

type unitRow struct {
	Unit
	Current, Candidate string
}

func newPage(r *Report) page {
	p := page{Report: r, CurrentScheduler: r.Current.scheduler(), CandidateScheduler: r.Candidate.scheduler(), Outcome: "blocked", MovedPercent: strconv.FormatFloat(r.Counts.MovedPercent(), 'f', 1, 64),
		MovedByChangePercent: strconv.FormatFloat(r.Counts.MovedByChangePercent(), 'f', 1, 64),
		MaxMoved:             "no bound", Chart: newChart(r.Spread, r.SpreadLeftOut)}
	switch {
	case r.Verdict.Allowed:
		p.Outcome = "allowed"
	case r.Verdict.Inconclusive:
		p.Outcome = "inconclusive"
	}
	if m := r.Gate.MaxMovedPercent; m != nil {
		p.MaxMoved = strconv.FormatFloat(*m, 'g', -1, 64)
	}
	nodes := map[string]PodResult{}
	for _, pr := range r.Pods {
		nodes[pr.Pod] = pr
	}
	for _, u := range r.Units {
		if u.Change == Same {
			continue
		}
		if len(p.Changed) == MaxPageUnits {
			p.ChangedLeftOut++
			continue
		}
		row := unitRow{Unit: u, Current: "(gang)", Candidate: "(gang)"}
		if !u.Gang {
			row.Current, row.Candidate = orDash(nodes[u.Name].Current.Node), orDash(nodes[u.Name].Candidate.Node)
		}
		p.Changed = append(p.Changed, row)
	}
	return p
}

// The chart's geometry, in SVG user units (pixels at 100%).
const (
	chartLabelWidth = 230
	chartPlotWidth  = 480
	chartBarHeight  = 13
	chartRowHeight  = 2*chartBarHeight + 12
	chartTop        = 8
	chartAxis       = 24
	chartLabelRunes = 30
)

// chart is a grouped horizontal bar chart of the replayed pods per node.
type chart struct {
	Width, Height, PlotLeft, PlotRight, AxisY int
	BarHeight                                 int
	Rows                                      []chartRow
	Max                                       int
	LeftOut                                   int
}

type chartRow struct {
	NodeSpread
	// Label is Node, shortened to fit the label column.
	Label string
	// LabelY is the baseline of the label, between the row's two bars.
	LabelY int
	// Bars are the current arm's, then the candidate's.
	Bars [2]chartBar
}

type chartBar struct {
	Arm                           string
	Value                         int
	Y, Width, TextX, TextBaseline int
}

func newChart(spread []NodeSpread, leftOut int) chart {
	c := chart{Width: chartLabelWidth + chartPlotWidth + 40, BarHeight: chartBarHeight, PlotLeft: chartLabelWidth, PlotRight: chartLabelWidth + chartPlotWidth,
		LeftOut: leftOut, Max: 1}
	for _, s := range spread {
		c.Max = max(c.Max, s.Current, s.Candidate)
	}
	bar := func(arm string, v, y int) chartBar {
		w := v * chartPlotWidth / c.Max
		return chartBar{Arm: arm, Value: v, Y: y, Width: w, TextX: c.PlotLeft + w + 4, TextBaseline: y + chartBarHeight - 3}
	}
	for i, s := range spread {
		y := chartTop + i*chartRowHeight
		c.Rows = append(c.Rows, chartRow{NodeSpread: s, Label: shorten(s.Node, chartLabelRunes), LabelY: y + chartBarHeight + 4,
			Bars: [2]chartBar{bar("current", s.Current, y), bar("candidate", s.Candidate, y+chartBarHeight+1)}})
	}
	c.AxisY = chartTop + len(spread)*chartRowHeight
	c.Height = c.AxisY + chartAxis
	return c
}

// shorten keeps the start and the end of a long name, which tell nodes apart.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := (n - 1) / 2
	return fmt.Sprintf("%s…%s", string(r[:head]), string(r[len(r)-(n-1-head):]))
}
