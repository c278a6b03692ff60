"""prof.export_html(path): the whole profile in one HTML file that opens offline in any browser: a
timeline per thread (wheel zooms, drag pans, hover names an event), the key_averages table (click a
column to sort) and the bytes in use over time. The data is embedded as JSON; the page's script
draws it on canvases, with no library and no network."""
from __future__ import annotations

import html
import json

from ._table import format_memory, format_time

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>%(title)s</title>
<style>
body{font:13px system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:18px} h2{font-size:15px;margin-top:22px}
canvas{border:1px solid #bbb;display:block;width:100%%}
#tip{position:fixed;pointer-events:none;background:#ffe;border:1px solid #999;padding:3px 6px;display:none}
table{border-collapse:collapse;margin-top:6px} th,td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}
th{cursor:pointer;background:#f2f2f2} td:first-child,th:first-child{text-align:left}
</style></head><body>
<h1>%(title)s</h1>
<p>%(summary)s</p>
<h2>Timeline</h2><p>Wheel: zoom. Drag: pan. Double-click: reset.</p>
<canvas id="timeline" height="%(timeline_height)d"></canvas>
<h2>Memory</h2>
<canvas id="memory" height="220"></canvas>
<h2>Ops</h2>
<table id="ops"><thead><tr>%(headers)s</tr></thead><tbody></tbody></table>
<div id="tip"></div>
<script>
const DATA = %(data)s;
const LANE = 18, GAP = 8, LEFT = 120;
const tl = document.getElementById('timeline'), tip = document.getElementById('tip');
let t0 = DATA.start, t1 = DATA.end;
function color(name){let h=0;for(const c of name)h=(h*31+c.charCodeAt(0))>>>0;return 'hsl('+(h%%360)+',55%%,62%%)';}
function laneTop(i){return 20+i*(DATA.depth*LANE+GAP);}
function drawTimeline(){
  const w = tl.clientWidth; tl.width = w; const g = tl.getContext('2d');
  const sx = (w-LEFT)/(t1-t0);
  g.clearRect(0,0,w,tl.height); g.font='11px sans-serif';
  g.fillStyle='#444'; g.fillText(fmt(t0),LEFT,12); g.fillText(fmt(t1),w-60,12);
  DATA.threads.forEach((tid,i)=>{g.fillStyle='#222';g.fillText('thread '+tid,4,laneTop(i)+12);});
  for(const e of DATA.events){
    const x0 = LEFT+(e[2]-t0)*sx, x1 = LEFT+(e[3]-t0)*sx;
    if(x1 < LEFT || x0 > w) continue;
    const y = laneTop(e[1])+e[4]*LANE, bw = Math.max(1,x1-x0);
    g.fillStyle = color(e[0]); g.fillRect(Math.max(LEFT,x0),y,bw,LANE-2);
    if(bw>40){g.fillStyle='#000';g.save();g.beginPath();g.rect(x0,y,bw,LANE);g.clip();
      g.fillText(e[0],Math.max(LEFT,x0)+2,y+12);g.restore();}
  }
}
function fmt(us){return us>=1e6?(us/1e6).toFixed(3)+'s':us>=1e3?(us/1e3).toFixed(3)+'ms':us.toFixed(1)+'us';}
function hit(mx,my){
  const sx=(tl.clientWidth-LEFT)/(t1-t0);
  for(const e of DATA.events){
    const x0=LEFT+(e[2]-t0)*sx, x1=LEFT+(e[3]-t0)*sx, y=laneTop(e[1])+e[4]*LANE;
    if(mx>=x0&&mx<=Math.max(x1,x0+1)&&my>=y&&my<y+LANE-2) return e;
  }
  return null;
}
tl.addEventListener('wheel',ev=>{ev.preventDefault();const r=tl.getBoundingClientRect();
  const at=t0+(ev.clientX-r.left-LEFT)/(tl.clientWidth-LEFT)*(t1-t0), f=ev.deltaY<0?0.8:1.25;
  t0=at-(at-t0)*f; t1=at+(t1-at)*f; drawTimeline();});
let drag=null;
tl.addEventListener('mousedown',ev=>{drag=ev.clientX;});
window.addEventListener('mouseup',()=>{drag=null;});
tl.addEventListener('mousemove',ev=>{const r=tl.getBoundingClientRect();
  if(drag!==null){const d=(ev.clientX-drag)/(tl.clientWidth-LEFT)*(t1-t0);
    t0-=d;t1-=d;drag=ev.clientX;drawTimeline();return;}
  const e=hit(ev.clientX-r.left,ev.clientY-r.top);
  if(e){tip.style.display='block';tip.style.left=(ev.clientX+12)+'px';tip.style.top=(ev.clientY+12)+'px';
    tip.textContent=e[0]+'  '+fmt(e[3]-e[2]);} else tip.style.display='none';});
tl.addEventListener('dblclick',()=>{t0=DATA.start;t1=DATA.end;drawTimeline();});
function drawMemory(){
  const c=document.getElementById('memory'), w=c.clientWidth; c.width=w; const g=c.getContext('2d');
  const m=DATA.memory, H=c.height-30;
  g.font='11px sans-serif'; g.strokeStyle='#888'; g.strokeRect(LEFT,10,w-LEFT-10,H);
  if(!m.t.length){g.fillStyle='#444';g.fillText('no memory recorded (profile_memory=False)',LEFT+10,40);return;}
  const lo=Math.min(...m.b), hi=Math.max(...m.b,lo+1), ta=DATA.start, tb=Math.max(DATA.end,ta+1);
  g.fillStyle='#444'; g.fillText(DATA.memory.hi_label,4,18); g.fillText(DATA.memory.lo_label,4,10+H);
  g.strokeStyle='#c33'; g.beginPath();
  m.t.forEach((t,i)=>{const x=LEFT+(t-ta)/(tb-ta)*(w-LEFT-10), y=10+H-(m.b[i]-lo)/(hi-lo)*H;
    if(i==0)g.moveTo(x,y); else {g.lineTo(x,10+H-(m.b[i-1]-lo)/(hi-lo)*H); g.lineTo(x,y);}});
  g.stroke();
}
const body=document.querySelector('#ops tbody'); let sortCol=2, desc=true;
function drawTable(){
  const rows=[...DATA.table].sort((a,b)=>{const x=a[sortCol],y=b[sortCol];
    return (typeof x==='string'?x.localeCompare(y):x-y)*(desc?-1:1);});
  body.innerHTML=rows.map(r=>'<tr>'+r.map((v,i)=>'<td>'+DATA.format[i](v)+'</td>').join('')+'</tr>').join('');
}
DATA.format=[s=>s.replace(/&/g,'&amp;').replace(/</g,'&lt;'),x=>x,fmt,fmt,fmt,v=>v];
document.querySelectorAll('#ops th').forEach((th,i)=>th.addEventListener('click',()=>{
  desc = sortCol===i ? !desc : true; sortCol=i; drawTable();}));
window.addEventListener('resize',()=>{drawTimeline();drawMemory();});
drawTimeline(); drawMemory(); drawTable();
</script></body></html>
"""


def _depths(events):
    """Each event's nesting depth on its thread (its row inside the thread's lane)."""
    depth = {}
    for e in events:
        d, p = 0, e.cpu_parent
        while p is not None:
            d, p = d + 1, p.cpu_parent
        depth[e.id] = d
    return depth


def write_html(prof, path):
    events = prof.events()
    threads = sorted({e.thread for e in events})
    lane = {t: i for i, t in enumerate(threads)}
    depth = _depths(events)
    rows = [[e.name, lane[e.thread], round(e.time_range.start, 3), round(e.time_range.end, 3), depth[e.id]]
            for e in events]
    times, sizes = (prof.memory_timeline() if prof.profile_memory else ([], []))
    start = min([r[2] for r in rows] + times, default=0.0)
    end = max([r[3] for r in rows] + times, default=1.0)
    table = [[a.key, a.count, round(a.self_cpu_time_total, 3), round(a.cpu_time_total, 3), round(a.cpu_time, 3),
              a.self_cpu_memory_usage] for a in events.key_averages()]
    headers = ["Name", "# of Calls", "Self CPU", "CPU total", "CPU time avg", "Self CPU Mem (B)"]
    data = {"events": rows, "threads": threads, "depth": max(depth.values(), default=0) + 1, "start": start,
            "end": end if end > start else start + 1.0, "table": table,
            "memory": {"t": times, "b": sizes, "hi_label": format_memory(max(sizes, default=0)),
                       "lo_label": format_memory(min(sizes, default=0))}}
    total = sum(e.self_cpu_time_total for e in events)
    summary = (f"{len(events)} events on {len(threads)} thread(s); self CPU time total {format_time(total)}"
               + (f"; peak memory {format_memory(max(sizes))}" if sizes else ""))
    page = _PAGE % {"title": "ember profile", "summary": html.escape(summary),
                    "timeline_height": 30 + len(threads) * (data["depth"] * 18 + 8),
                    "headers": "".join(f"<th>{html.escape(h)}</th>" for h in headers),
                    "data": json.dumps(data).replace("</", "<\\/")}
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
    return path
