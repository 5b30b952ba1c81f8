# The CI gate for Windows runners, the PowerShell twin of ci/gate.sh: run a suite against a spawner,
# write results, JUnit, SARIF, the HTML report and the Markdown summary, and fail only on findings an
# accepted baseline does not cover.
#
# Usage: pwsh ci/gate.ps1 (-Spawner S | -Driver CMD) [-Suite NAME|FILE] [-Baseline FILE] [-Out DIR]
#                         [-AllowChange 'version,platform'] [-Bin PATH] [-RunArgs @('--only','fs.*')]
# Defaults from the environment: BREAKOUT_SPAWNER, BREAKOUT_SUITE (else default), BREAKOUT_BASELINE,
# BREAKOUT_ALLOW_CHANGE, BREAKOUT_BIN (else build\bin\breakout.exe), BREAKOUT_OUT. Windows ships no
# default sandbox, so a spawner or a driver must be named (the bash gate defaults to bubblewrap).
# Exit status (docs/ci.md), as ci/gate.sh: 0 nothing new, no coverage lost; 4 a new escape or failing
# verdict relative to the baseline; 5 lost coverage: nothing judged, or against the baseline a passed
# execution no longer judged or another spawner/version/suite/policy set/platform (-AllowChange
# waives those); without a baseline, run's own status (3 an escape, 1 overblock/broken/error, 5 every
# execution skipped); 2 usage, configuration or a spawner that cannot start; 130 interrupted.
# Written for PowerShell 7 (GitHub's windows-latest `shell: pwsh`) and kept to what Windows
# PowerShell 5.1 also parses. Not executed on the machine breakout is developed on (no PowerShell
# there); docs/ci.md says so.
[CmdletBinding()]
param(
  [string]$Spawner = $env:BREAKOUT_SPAWNER,
  [string]$Driver = '',
  [string]$Suite = $env:BREAKOUT_SUITE,
  [string]$Baseline = $env:BREAKOUT_BASELINE,
  [string]$AllowChange = $env:BREAKOUT_ALLOW_CHANGE,
  [string]$Out = $env:BREAKOUT_OUT,
  [string]$Bin = $env:BREAKOUT_BIN,
  [string[]]$RunArgs = @()
)
$ErrorActionPreference = 'Stop'
Set-Location (Split-Path -Parent $PSScriptRoot)

function Fail-Usage([string]$Why) {
  [Console]::Error.WriteLine("gate: $Why")
  exit 2
}

if (-not $Suite) { $Suite = 'default' }
if (-not $Bin) { $Bin = Join-Path 'build' (Join-Path 'bin' 'breakout.exe') }
if (-not $Out) { $Out = Join-Path 'breakout-results' ((Get-Date).ToUniversalTime().ToString('yyyyMMddTHHmmssZ') + '-gate') }
if (-not (Test-Path -LiteralPath $Bin -PathType Leaf)) { Fail-Usage "no breakout binary at $Bin (build it, or pass -Bin)" }
if ($Baseline -and -not (Test-Path -LiteralPath $Baseline -PathType Leaf)) { Fail-Usage "baseline $Baseline does not exist" }
if ($Driver) { $how = @('--driver', $Driver) }
elseif ($Spawner) { $how = @('--spawner', $Spawner) }
else { Fail-Usage 'name a spawner (-Spawner or BREAKOUT_SPAWNER) or a driver (-Driver)' }

& $Bin run @how --suite $Suite --out $Out @RunArgs
$rc = $LASTEXITCODE
Write-Output "gate: breakout run exited $rc"
$results = Join-Path $Out 'results.json'
# 2 (usage, configuration, a spawner that cannot start) and 130 (interrupted) are not findings to gate on.
if (-not (Test-Path -LiteralPath $results) -or $rc -eq 2 -or $rc -eq 130) {
  [Console]::Error.WriteLine("gate: FAIL: the run did not complete (exit $rc); nothing was judged")
  if ($rc -eq 130) { exit 130 } else { exit 2 }
}

$summary = Join-Path $Out 'summary.md'
$reportArgs = @()
# With a baseline, results.sarif is written again with the findings it accepts marked suppressed.
if ($Baseline) { $reportArgs = @('--baseline', $Baseline, '--sarif', (Join-Path $Out 'results.sarif')) }
& $Bin report $results --out (Join-Path $Out 'report.html') --markdown $summary @reportArgs
if ($LASTEXITCODE -ne 0) { [Console]::Error.WriteLine('gate: warning: report not written') }
$gate = $rc
if ($Baseline) {
  $diffText = Join-Path $Out 'diff.txt'
  $allowArgs = @()
  if ($AllowChange) { $allowArgs = @('--allow-change', $AllowChange) }
  & $Bin diff --baseline $Baseline $results --json (Join-Path $Out 'diff.json') @allowArgs | Tee-Object -FilePath $diffText
  $gate = $LASTEXITCODE
  # Backticks would end the fenced block; the diff is bounded like the bash gate's (60000 characters).
  $text = (Get-Content -LiteralPath $diffText -Raw)
  if ($null -eq $text) { $text = '' }
  if ($text.Length -gt 60000) { $text = $text.Substring(0, 60000) }
  $fence = '```'
  $block = "`n### Gate against the baseline $($Baseline.Replace('`', ''))`n`n$fence`n$($text.Replace('`', "'"))`n$fence`n"
  Add-Content -LiteralPath $summary -Value $block -Encoding utf8
}
if ($env:GITHUB_STEP_SUMMARY -and (Test-Path -LiteralPath $summary)) {
  Get-Content -LiteralPath $summary -Raw | Add-Content -LiteralPath $env:GITHUB_STEP_SUMMARY -Encoding utf8
}
Write-Output "gate: results $results, JUnit $(Join-Path $Out 'junit.xml'), SARIF $(Join-Path $Out 'results.sarif'), report $(Join-Path $Out 'report.html'), summary $summary"
switch ($gate) {
  0 { Write-Output 'gate: PASS' }
  4 { [Console]::Error.WriteLine('gate: FAIL: a new escape or failing verdict that the baseline does not accept') }
  3 { [Console]::Error.WriteLine('gate: FAIL: escapes (no baseline given; accept known ones with breakout baseline)') }
  5 { [Console]::Error.WriteLine('gate: FAIL: lost coverage: nothing was judged, or less or something else than the baseline describes (the reason is above)') }
  default { [Console]::Error.WriteLine("gate: FAIL: exit $gate") }
}
exit $gate
