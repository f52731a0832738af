// A product page of real data: one GitHub webhook payload (from the bench's data server, through
// Next's fetch cache, tagged), rendered whole as nested lists. ISR, rendered on demand and kept an
// hour; the render's pid and time show which instance rendered it.
export const revalidate = 3600
export const dynamicParams = true
export async function generateStaticParams() {
  return []
}

function Value({ value }) {
  if (value === null || typeof value !== 'object') return <span>{String(value)}</span>
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value)
  return (
    <dl>
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>
            <Value value={v} />
          </dd>
        </div>
      ))}
    </dl>
  )
}

export default async function Product({ params }) {
  const { id } = await params
  const response = await fetch(`${process.env.DATA_URL}/${id}`, { cache: 'force-cache', next: { tags: ['products', `product-${id}`] } })
  const payload = await response.json()
  return (
    <main>
      <p id="rendered">{`product ${id} rendered by ${process.pid} at ${Date.now()}`}</p>
      <Value value={payload} />
    </main>
  )
}
