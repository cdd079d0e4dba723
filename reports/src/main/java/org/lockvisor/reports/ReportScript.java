package org.lockvisor.reports;

/**
 * The one script and style a report page carries when it has flame graphs or lock timelines
 * (inlined, no network access): zoom on click and search with a match count for every {@code
 * svg.fg} ({@link FlameGraph}), the window selector of every lock timeline ({@link
 * LockTimelineSvg}). Frames are found by their {@code g.f} elements; nothing is generated that the
 * Java side did not draw, except labels re-fitted after a zoom.
 */
final class ReportScript {

  private ReportScript() {}

  static final String STYLE = """
      .fgbox{margin:1em 0}.fgbar{font:12px sans-serif;margin:.2em 0}.fgbar input{width:14em}
      .fgbar button{margin-left:.3em}.fg .f{cursor:pointer}.fg .f:hover rect{stroke:#000;stroke-width:.5}
      .fg .f text{pointer-events:none}.fg .anc rect{opacity:.55}.fgdetail{font:12px monospace;min-height:1.3em;color:#333}
      .legend span{display:inline-block;padding:0 .5em;margin-right:.4em;border:1px solid #bbb;font-size:.85em}
      details>summary{cursor:pointer;font-weight:600;margin:.4em 0}
      .tl .tlr{cursor:default}
      """;

  static final String SCRIPT = """
      (function(){
      'use strict';
      var W=1000;
      function label(name,w){var c=Math.floor((w-6)/6.7);if(c<3)return '';return name.length<=c?name:name.substring(0,c-2)+'..';}
      function frames(svg){
        if(svg._frames)return svg._frames;
        var out=[];
        svg.querySelectorAll('g.f').forEach(function(g){
          var r=g.querySelector('rect');var t=g.querySelector('title').textContent;var nl=t.indexOf('\\n');
          out.push({g:g,r:r,name:nl<0?t:t.substring(0,nl),tip:t.replace('\\n',' - '),x:+r.getAttribute('x'),
            w:+r.getAttribute('width'),y:+r.getAttribute('y'),fill:r.getAttribute('fill')});
        });
        svg._frames=out;return out;
      }
      function setLabel(f,x,w){
        var t=f.g.querySelector('text');var s=label(f.name,w);
        if(!t){if(!s)return;t=document.createElementNS('http://www.w3.org/2000/svg','text');f.g.appendChild(t);}
        t.setAttribute('x',(x+3).toFixed(2));t.setAttribute('y',f.y+12);t.textContent=s;
      }
      function zoom(svg,z){
        var zx=z?z.x:0,zw=z?z.w:W,zy=z?z.y:Infinity,eps=1e-6*W;
        frames(svg).forEach(function(f){
          var x,w,show=true,anc=false;
          if(f.y>zy){anc=f.x<=zx+eps&&f.x+f.w>=zx+zw-eps;show=anc;x=0;w=W;}
          else if(f.x>=zx-eps&&f.x+f.w<=zx+zw+eps){x=(f.x-zx)/zw*W;w=f.w/zw*W;}
          else{show=false;}
          if(show&&!anc&&w<0.1)show=false;
          f.g.style.display=show?'':'none';
          if(!show)return;
          f.g.classList.toggle('anc',anc);
          f.r.setAttribute('x',x.toFixed(2));f.r.setAttribute('width',w.toFixed(2));setLabel(f,x,w);
        });
        svg.setAttribute('data-zoomed',z?z.name:'');
      }
      function search(svg,term,out){
        var re=null;
        if(term){try{re=new RegExp(term);}catch(e){re=null;}}
        var n=0,matched=[];
        frames(svg).forEach(function(f){
          var m=!!term&&(re?re.test(f.name):f.name.indexOf(term)>=0);
          f.r.setAttribute('fill',m?'rgb(230,0,230)':f.fill);
          if(m){n++;matched.push(f);}
        });
        matched.sort(function(a,b){return a.x-b.x||b.w-a.w;});
        var covered=0,end=-1;
        matched.forEach(function(f){if(f.x>=end-1e-9){covered+=f.w;end=f.x+f.w;}else if(f.x+f.w>end){covered+=f.x+f.w-end;end=f.x+f.w;}});
        svg.setAttribute('data-matches',n);
        out.textContent=term?(n+' frame'+(n==1?'':'s')+' match, '+(100*covered/W).toFixed(2)+'% of samples'):'';
      }
      document.querySelectorAll('.fgbox').forEach(function(box){
        var svg=box.querySelector('svg.fg');if(!svg)return;
        var input=box.querySelector('.fgsearch'),count=box.querySelector('.fgcount'),detail=box.querySelector('.fgdetail');
        frames(svg).forEach(function(f){
          f.g.addEventListener('click',function(){zoom(svg,f);});
          f.g.addEventListener('mouseover',function(){if(detail)detail.textContent=f.tip;});
        });
        var reset=box.querySelector('.fgreset');if(reset)reset.addEventListener('click',function(){zoom(svg,null);});
        var go=box.querySelector('.fggo');
        if(go&&input){
          go.addEventListener('click',function(){search(svg,input.value,count);});
          input.addEventListener('keydown',function(e){if(e.key==='Enter')search(svg,input.value,count);});
        }
        var clear=box.querySelector('.fgclear');
        if(clear&&input)clear.addEventListener('click',function(){input.value='';search(svg,'',count);});
      });
      document.querySelectorAll('.tlbox').forEach(function(box){
        var svg=box.querySelector('svg.tl');var sel=box.querySelector('.tlwin');var pos=box.querySelector('.tlpos');
        var info=box.querySelector('.tlinfo');if(!svg||!sel||!pos)return;
        var t0=+svg.getAttribute('data-t0'),t1=+svg.getAttribute('data-t1'),x0=+svg.getAttribute('data-x0'),
          xw=+svg.getAttribute('data-xw');
        var items=[];svg.querySelectorAll('.tlr').forEach(function(r){items.push({r:r,s:+r.getAttribute('data-s'),
          e:+r.getAttribute('data-e')});});
        var ticks=svg.querySelectorAll('.tltick');
        function draw(){
          var span=sel.value==='all'?(t1-t0):Math.min(+sel.value,t1-t0);
          var maxStart=Math.max(0,(t1-t0)-span);var start=t0+maxStart*(+pos.value)/1000;var end=start+span;
          pos.disabled=maxStart<=0;
          items.forEach(function(it){
            var s=Math.max(it.s,start),e=Math.min(it.e,end);
            if(e<=s&&!(it.s===it.e&&it.s>=start&&it.s<=end)){it.r.style.display='none';return;}
            it.r.style.display='';
            it.r.setAttribute('x',(x0+(s-start)/span*xw).toFixed(2));
            it.r.setAttribute('width',Math.max(0.5,(e-s)/span*xw).toFixed(2));
          });
          ticks.forEach(function(t,i){var v=start+span*i/(ticks.length-1);t.textContent=(v/1e3).toFixed(span<2e4?2:0)+' us';});
          svg.setAttribute('data-window',start+','+end);
          if(info)info.textContent='window '+(start/1e6).toFixed(3)+' - '+(end/1e6).toFixed(3)+' ms';
        }
        sel.addEventListener('change',draw);pos.addEventListener('input',draw);draw();
      });
      })();
      """;
}
