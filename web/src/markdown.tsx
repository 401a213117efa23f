import { Fragment, type ReactNode } from 'react';
import { Lexer, type Token, type Tokens } from 'marked';

/**
 * Markdown from agents and people (alert descriptions, comments, run answers) rendered safely:
 * marked only tokenizes, and this file turns the tokens into React elements, so no HTML string is
 * ever put into the page. Raw HTML in the source shows as text; links are kept only when they are
 * http(s) (anything else — javascript:, data:, relative — shows as its text); images become
 * links, never loaded. Every screen goes through this one component: there is no other path
 * from markdown to the page.
 */
export function Markdown({ text, className = 'prose' }: { text: string; className?: string }) {
  if (!text.trim()) return null;
  return <div className={`markdown ${className}`}>{blocks(Lexer.lex(text, { gfm: true, breaks: true }))}</div>;
}

export function safeHref(href: string): string | null {
  try {
    const u = new URL(href);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

function blocks(tokens: Token[]): ReactNode[] {
  return tokens.map((t, i) => <Fragment key={i}>{block(t)}</Fragment>);
}

function block(t: Token): ReactNode {
  switch (t.type) {
    case 'paragraph':
      return <p>{inline((t as Tokens.Paragraph).tokens)}</p>;
    case 'heading': {
      // Headings inside content never outrank the page's own (h1, h2): h3 at most.
      const Tag = `h${Math.min(6, Math.max(3, (t as Tokens.Heading).depth + 2))}` as 'h3';
      return <Tag>{inline((t as Tokens.Heading).tokens)}</Tag>;
    }
    case 'list': {
      const l = t as Tokens.List;
      const items = l.items.map((item, i) => <li key={i}>{item.task && <span aria-hidden="true">{item.checked ? '☑ ' : '☐ '}</span>}{blocks(item.tokens)}</li>);
      return l.ordered ? <ol start={typeof l.start === 'number' ? l.start : undefined}>{items}</ol> : <ul>{items}</ul>;
    }
    case 'code':
      return <pre className="code"><code>{(t as Tokens.Code).text}</code></pre>;
    case 'blockquote':
      return <blockquote>{blocks((t as Tokens.Blockquote).tokens)}</blockquote>;
    case 'hr':
      return <hr />;
    case 'space':
      return null;
    case 'table': {
      const tb = t as Tokens.Table;
      return (
        <div className="table-wrap">
          <table>
            <thead><tr>{tb.header.map((c, i) => <th key={i} scope="col">{inline(c.tokens)}</th>)}</tr></thead>
            <tbody>{tb.rows.map((r, i) => <tr key={i}>{r.map((c, j) => <td key={j}>{inline(c.tokens)}</td>)}</tr>)}</tbody>
          </table>
        </div>
      );
    }
    case 'text': {
      const tx = t as Tokens.Text;
      return tx.tokens ? inline(tx.tokens) : tx.text;
    }
    default:
      // html blocks and anything unknown: the source as text.
      return <p>{t.raw}</p>;
  }
}

function inline(tokens: Token[] | undefined): ReactNode[] {
  return (tokens ?? []).map((t, i) => <Fragment key={i}>{span(t)}</Fragment>);
}

function span(t: Token): ReactNode {
  switch (t.type) {
    case 'text': {
      const tx = t as Tokens.Text;
      return tx.tokens ? inline(tx.tokens) : tx.text;
    }
    case 'escape':
      return (t as Tokens.Escape).text;
    case 'strong':
      return <strong>{inline((t as Tokens.Strong).tokens)}</strong>;
    case 'em':
      return <em>{inline((t as Tokens.Em).tokens)}</em>;
    case 'del':
      return <del>{inline((t as Tokens.Del).tokens)}</del>;
    case 'codespan':
      return <code>{(t as Tokens.Codespan).text}</code>;
    case 'br':
      return <br />;
    case 'link':
    case 'image': {
      const l = t as Tokens.Link | Tokens.Image;
      const href = safeHref(l.href);
      const label = t.type === 'image' ? l.text || l.href : inline((l as Tokens.Link).tokens);
      return href ? <a href={href} rel="noopener noreferrer" target="_blank">{label}</a> : <>{label}</>;
    }
    default:
      // Inline HTML (`<b>`, `<script>`) and anything unknown: shown as the text it is.
      return t.raw;
  }
}
