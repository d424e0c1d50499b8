-- End-to-end test of `crd-studio lsp` in a real client: Neovim's built-in `vim.lsp`, headless.
-- Run by `cargo xtask test` (step "lsp in Neovim") as:
--   nvim --headless --clean -l lsp_e2e.lua BINARY CRD_FILE
-- It makes a workspace in a temporary folder, opens an object, and checks the diagnostics,
-- completion, hover, go to definition and a code action's edit; then a test file's failing
-- expectation (a diagnostic at it, cleared when fixed). Exits 1 on the first failure.

local bin, crd_file = arg[1], arg[2]
local root = vim.fn.tempname()
vim.fn.mkdir(root, 'p')
vim.fn.writefile(vim.fn.readfile(crd_file), root .. '/crd.yaml')
vim.fn.writefile({}, root .. '/.crd-studio.yaml')
vim.fn.writefile({
  'apiVersion: stable.example.com/v1',
  'kind: CronTab',
  'metadata:',
  '  name: a',
  'spec:',
  '  cronSpec: "* * * * */5"',
  '  replicas: 20',
}, root .. '/bad.yaml')
vim.fn.writefile({
  'apiVersion: stable.example.com/v1',
  'kind: CronTab',
  'metadata:',
  '  name: a',
  'spec:',
  '  cronSpec: "* * * * */5"',
  '  replica: 3',
}, root .. '/typo.yaml')
vim.fn.writefile({
  'crd: crd.yaml',
  'cases:',
  '  - name: too many',
  '    object: {apiVersion: stable.example.com/v1, kind: CronTab, metadata: {name: a}, spec: {replicas: 20}}',
  '    expect:',
  '      errors:',
  '        - {path: spec, message: replicas must be at most 11}',
}, root .. '/crontab.crdtest.yaml')

local function check(ok, what)
  if not ok then
    io.stderr:write('FAIL: ' .. what .. '\n')
    os.exit(1)
  end
  io.stdout:write('ok: ' .. what .. '\n')
end

vim.cmd('filetype on')
vim.lsp.config('crd_studio', {
  cmd = { bin, 'lsp' },
  filetypes = { 'yaml', 'json' },
  root_markers = { '.crd-studio.yaml', '.git' },
  settings = { ['crd-studio'] = { kubernetesVersion = '1.37' } },
})
vim.lsp.enable('crd_studio')

local function open(name)
  vim.cmd.edit(root .. '/' .. name)
  local buf = vim.api.nvim_get_current_buf()
  check(vim.wait(20000, function() return #vim.lsp.get_clients({ bufnr = buf }) > 0 end), name .. ': the client attaches')
  return buf, vim.lsp.get_clients({ bufnr = buf })[1]
end

local function messages(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do table.insert(out, d.message) end
  return table.concat(out, ' | ')
end

-- Diagnostics: the CEL rule's message, exactly as the server words it.
local buf, client = open('bad.yaml')
check(vim.wait(30000, function() return messages(buf):find('replicas must be at most 10', 1, true) ~= nil end),
  'diagnostics: ' .. messages(buf))
local d = vim.diagnostic.get(buf)[1]
check(d.source == 'crd-studio' and d.lnum == 4, 'diagnostic place and source (line ' .. d.lnum .. ')')

-- Hover on cronSpec.
local pos = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 5, character = 4 } }
local r = client:request_sync('textDocument/hover', pos, 10000, buf)
check(r and r.result and r.result.contents.value:find('cronSpec', 1, true), 'hover')

-- Go to definition: the schema node in crd.yaml.
r = client:request_sync('textDocument/definition', pos, 10000, buf)
local loc = r and r.result and (r.result.uri and r.result or r.result[1])
check(loc and loc.uri:find('crd.yaml', 1, true), 'definition')

-- Completion under spec: a new line typed as `  im`.
vim.api.nvim_buf_set_lines(buf, 6, 6, false, { '  im' })
local cpos = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 6, character = 4 } }
r = client:request_sync('textDocument/completion', cpos, 10000, buf)
local labels = {}
for _, item in ipairs((r and r.result) or {}) do table.insert(labels, item.label) end
check(vim.tbl_contains(labels, 'image'), 'completion: ' .. table.concat(labels, ','))

-- A code action's edit: the did-you-mean fix of `replica`.
local tbuf, tclient = open('typo.yaml')
check(vim.wait(30000, function() return messages(tbuf):find('unknown field "spec.replica"', 1, true) ~= nil end),
  'typo diagnostics: ' .. messages(tbuf))
local params = {
  textDocument = { uri = vim.uri_from_bufnr(tbuf) },
  range = { start = { line = 6, character = 3 }, ['end'] = { line = 6, character = 3 } },
  context = { diagnostics = {} },
}
r = tclient:request_sync('textDocument/codeAction', params, 10000, tbuf)
local action = r and r.result and r.result[1]
check(action and action.edit, 'code action offered: ' .. (action and action.title or vim.inspect(r)))
vim.lsp.util.apply_workspace_edit(action.edit, 'utf-16')
local line = vim.api.nvim_buf_get_lines(tbuf, 6, 7, false)[1]
check(line == '  replicas: 3', 'code action applied: ' .. line)
check(vim.wait(30000, function() return #vim.diagnostic.get(tbuf) == 0 end), 'fixed: ' .. messages(tbuf))

-- A test file: the failing expectation is a diagnostic on its line; fixed, it goes away.
local xbuf = open('crontab.crdtest.yaml')
check(vim.wait(30000, function() return messages(xbuf):find('expect.errors[0]', 1, true) ~= nil end),
  'test file diagnostics: ' .. messages(xbuf))
local xd = vim.diagnostic.get(xbuf)[1]
check(xd.lnum == 6 and xd.col == 10, 'test file diagnostic place (' .. xd.lnum .. ':' .. xd.col .. ')')
vim.api.nvim_buf_set_lines(xbuf, 6, 7, false, { '        - {path: spec, message: replicas must be at most 10}' })
check(vim.wait(30000, function() return #vim.diagnostic.get(xbuf) == 0 end), 'test file fixed: ' .. messages(xbuf))

vim.fn.delete(root, 'rf')
os.exit(0)
